import ArgumentParser
import Foundation
import Herald
import HeraldCore

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Run the server (applies pending migrations first).")

    @OptionGroup var common: CommonOptions

    @Option(name: .long, help: "Address to listen on (default 127.0.0.1).")
    var host: String?

    @Option(name: .long, help: "Port to listen on (default 8080; 0 picks a free one).")
    var port: Int?

    @Option(
        name: .long,
        help:
            "Demo mode only: the repository's fixtures directory, for the in-process mock APNs, FCM and Web Push. Default: ./fixtures, else the one beside these sources."
    )
    var fixtures: String?

    /// Words after `herald` that are not a command: `serve` is the default command, so without this a typo
    /// (`herald serv`) would be reported as an argument serve does not take, with serve's usage.
    @Argument(help: .hidden) var unexpected: [String] = []

    func validate() throws {
        guard let word = unexpected.first else { return }
        fail(Self.unknownCommand(word))
    }

    /// One line naming the commands, and the nearest one when the word is close to it (as a mistyped
    /// configuration key is answered).
    static func unknownCommand(_ word: String) -> String {
        let names = HeraldCommand.configuration.subcommands.map { $0._commandName }
        if names.contains(word) { return "'\(word)' is a command: put it first (herald \(word) …; herald \(word) --help)" }
        let hint = KeySuggestion.nearest(to: word, among: names).map { " (did you mean '\($0)'?)" } ?? ""
        return "unknown command '\(word)'\(hint); the commands are \(names.joined(separator: ", ")) (herald --help)"
    }

    func run() async throws {
        try await reportingFailures {
            let configuration = try common.load(host: host, port: port)
            let logger = makeLogger(configuration)
            // Demo mode (no apps configured): the demo app publishes to mock servers in this process.
            var mocks: DemoMocks?
            var missing: String?
            if configuration.apps.isEmpty {
                // Herald's own ports stay free for it: the mocks move to free ones when theirs collide.
                let reserved = Set([configuration.http.port, configuration.metrics.port].compactMap { $0 }.filter { $0 != 0 })
                do {
                    mocks = try await DemoMocks.start(fixtures: try DemoFixtures.locate(explicit: fixtures), avoiding: reserved)
                } catch {
                    missing = "\(error)"
                }
            }
            let demo = Banner.Demo(mocks: mocks?.bannerLines ?? [], unavailable: missing)
            do {
                try await HeraldRuntime.serve(configuration: configuration, logger: logger, demoDelivery: mocks?.delivery) { started in
                    // Unbuffered, so a supervisor or a test reading the pipe sees it as soon as the port is open.
                    FileHandle.standardOutput.write(Data((Banner.text(for: started, demo: demo) + "\n").utf8))
                }
            } catch {
                await mocks?.shutdown()
                throw error
            }
            await mocks?.shutdown()
        }
    }
}

/// What `herald serve` prints once it listens: where, and in demo mode the keys, a curl line to try and
/// where published messages go.
enum Banner {
    /// Demo mode's mock servers, as banner lines, or why there are none.
    struct Demo: Sendable {
        var mocks: [String]
        var unavailable: String?

        var lines: [String] {
            if let unavailable {
                return [
                    "Publishing in demo mode needs the mock servers, which could not start (\(unavailable)):",
                    "  messages to the demo app fail until a configuration file gives it apns, fcm or webPush settings.",
                ]
            }
            return mocks
        }
    }

    static func text(for started: HeraldRuntime.Started, demo mode: Demo = Demo(mocks: [])) -> String {
        let base = "http://\(started.host.contains(":") ? "[\(started.host)]" : started.host):\(started.port)"
        var lines = ["Herald listening on \(base) (database \(started.database))"]
        guard let demo = started.demo else { return lines.joined(separator: "\n") }
        guard demo.created else {
            lines.append("Demo app '\(demo.app.id)' in use; its keys were printed on first start. `herald keys` shows them again.")
            return (lines + mode.lines).joined(separator: "\n")
        }
        lines.append("No apps configured: created app '\(demo.app.id)' with these keys (kept in the database):")
        for key in demo.app.keys { lines.append("  \(key.role.rawValue.padding(toLength: 7, withPad: " ", startingAt: 0)) \(key.key)") }
        if let client = demo.app.keys.first(where: { $0.role == .client }) {
            lines.append("Try it:")
            lines.append(
                "  curl -s -X POST \(base)/\(demo.app.id)/\(client.key)/messaging/registrations -H 'Content-Type: application/json' -d '{\"deviceToken\":\"a1b2c3d4e5f60718\",\"deviceId\":\"my-phone\",\"channels\":[\"news\"]}'"
            )
        }
        return (lines + mode.lines).joined(separator: "\n")
    }
}
