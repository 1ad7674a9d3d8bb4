import Foundation
import HeraldCore

/// The built `herald` binary, run as an operator would run it.
public final class HeraldProcess: Sendable {
    public let process: Process
    private let output = Output()

    /// What the process printed so far; a class so the pipes' handlers can share it.
    final class Output: Sendable {
        let text = Locked((stdout: "", stderr: ""))
        /// Pipes that reached end of file (the process closed them: it exited).
        let closed = Locked(0)

        /// A pipe's readability handler that appends what arrives to stdout's text or stderr's, and counts
        /// the end of file.
        func reader(stdout: Bool) -> @Sendable (FileHandle) -> Void {
            { [self] handle in
                let data = handle.availableData
                if data.isEmpty {
                    handle.readabilityHandler = nil
                    closed.withLock { $0 += 1 }
                }
                let chunk = String(decoding: data, as: UTF8.self)
                text.withLock { text in
                    if stdout { text.stdout += chunk } else { text.stderr += chunk }
                }
            }
        }
    }

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
        process = Process()
        process.executableURL = Self.binary
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = directory }
        process.environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("HERALD_") }
            .merging(environment) { _, given in given }
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        out.fileHandleForReading.readabilityHandler = output.reader(stdout: true)
        err.fileHandleForReading.readabilityHandler = output.reader(stdout: false)
        try process.run()
    }

    public var stdout: String { output.text.withLock { $0.stdout } }
    public var stderr: String { output.text.withLock { $0.stderr } }

    /// Runs a command to completion and returns its exit code and output.
    public static func run(
        _ arguments: [String], directory: URL? = nil, environment: [String: String] = [:], timeout: Duration = .seconds(30)
    ) async throws -> (code: Int32, stdout: String, stderr: String) {
        let command = try HeraldProcess(arguments, directory: directory, environment: environment)
        let code = try await command.waitForExit(timeout: timeout)
        // Everything it printed: both pipes read to their end (a few seconds at most after the exit).
        let deadline = ContinuousClock.now + .seconds(5)
        while command.output.closed.withLock({ $0 }) < 2, ContinuousClock.now < deadline {
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

    public func kill9() { kill(process.processIdentifier, SIGKILL) }

    deinit { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
        public init(_ description: String) { self.description = description }
    }
}
