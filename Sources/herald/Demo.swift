import ArgumentParser
import Foundation
import Herald
import Logging

/// `herald demo`: publishing end to end on one machine, with nothing to set up. A real Herald, the mock
/// APNs and the mock FCM run in this process, so anyone can watch a fan-out, the clean-up of gone tokens
/// and the status counts without an Apple or Google account, and the numbers printed are the server's own.
struct Demo: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "Publish to 10,000 fake iOS, Android and web devices through a real Herald and in-process mock APNs, FCM and Web Push servers, run a Live Activity through a broadcast channel, then report."
    )

    @Option(
        name: .long,
        help:
            "The repository's fixtures directory (the mocks' TLS certificate and CA, the test .p8 key, the test FCM service account, the test VAPID key). Default: ./fixtures, else the one beside these sources."
    )
    var fixtures: String?

    @Option(name: .long, help: "Fake devices to register (100-100000).")
    var devices: Int = 10_000

    func run() async throws {
        guard (100...100_000).contains(devices) else { fail("demo: --devices must be between 100 and 100000") }
        let location: DemoFixtures
        do {
            location = try DemoFixtures.locate(explicit: fixtures)
        } catch {
            fail("demo: \(error)")
        }
        let quiet = ProcessInfo.processInfo.environment["HERALD_LOG_LEVEL"] == nil
        do {
            try await DemoTour(fixtures: location, deviceCount: devices, logger: Self.logger(quiet: quiet)).run()
        } catch {
            fail("demo: \(Self.describe(error))" + (quiet ? " (HERALD_LOG_LEVEL=info shows Herald's log)" : ""))
        }
    }

    /// Herald's log is off unless HERALD_LOG_LEVEL asks for it: the tour's lines are the output, and a
    /// failure is its one line on stderr.
    static func logger(quiet: Bool) -> Logger {
        let environment = ProcessInfo.processInfo.environment
        var settings = LogConfiguration()
        settings.level = environment["HERALD_LOG_LEVEL"].flatMap { Logger.Level(rawValue: $0.lowercased()) } ?? .info
        settings.format = environment["HERALD_LOG_FORMAT"].flatMap { LogConfiguration.Format(rawValue: $0.lowercased()) } ?? .text
        var logger = settings.makeLogger()
        if quiet { logger.logLevel = .critical }
        return logger
    }

    /// One line for any error: Herald's and the demo's own have a description made for operators.
    static func describe(_ error: any Error) -> String {
        switch error {
        case let error as any CustomStringConvertible: error.description.replacingOccurrences(of: "\n", with: " ")
        default: "\(error)"
        }
    }
}
