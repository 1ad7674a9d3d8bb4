import Foundation
import HeraldCore

/// The built `herald` binary, run as an operator would run it.
public final class HeraldProcess: Sendable {
    /// The running binary (`terminate()`, `isRunning`, `terminationStatus`, …).
    public let process: ChildProcess

    /// `swift test` builds every product next to the test bundle.
    public static var binary: URL {
        let candidates = [
            Bundle.main.executableURL?.deletingLastPathComponent().appendingPathComponent("herald"),
            Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent("herald"),
            FixtureFiles.root.appendingPathComponent(".build/debug/herald"),
        ].compactMap { $0 }
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) } ?? candidates.last!
    }

    public init(_ arguments: [String], directory: URL? = nil, environment: [String: String] = [:]) throws {
        process = try ChildProcess(
            Self.binary.path, arguments, directory: directory?.path,
            environment: ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("HERALD_") }
                .merging(environment) { _, given in given })
    }

    public var stdout: String { process.stdout }
    public var stderr: String { process.stderr }

    /// Runs a command to completion and returns its exit code and output.
    public static func run(
        _ arguments: [String], directory: URL? = nil, environment: [String: String] = [:], timeout: Duration = .seconds(30)
    ) async throws -> (code: Int32, stdout: String, stderr: String) {
        let command = try HeraldProcess(arguments, directory: directory, environment: environment)
        let code = try await command.waitForExit(timeout: timeout)
        // Everything it printed: both pipes read to their end (a few seconds at most after the exit).
        let deadline = ContinuousClock.now + .seconds(5)
        while !command.process.outputClosed, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        return (code, command.stdout, command.stderr)
    }

    /// Waits for "Herald listening on http://HOST:PORT" and returns the base URL.
    public func waitUntilListening(timeout: Duration = .seconds(30)) async throws -> URL {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let line = stdout.split(separator: "\n").first(where: { $0.hasPrefix("Herald listening on ") }),
                let address = line.dropFirst("Herald listening on ".count).split(separator: " ").first,
                let url = URL(string: String(address))
            {
                return url
            }
            if !process.isRunning { throw Failure("herald exited with \(process.terminationStatus): \(stderr)") }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw Failure("herald did not start listening: \(stderr)")
    }

    public func waitForExit(timeout: Duration = .seconds(30)) async throws -> Int32 {
        let deadline = ContinuousClock.now + timeout
        while process.isRunning {
            if ContinuousClock.now > deadline {
                process.terminate()
                throw Failure("herald did not exit in time")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        return process.terminationStatus
    }

    public func kill9() { process.kill9() }

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
        public init(_ description: String) { self.description = description }
    }
}
