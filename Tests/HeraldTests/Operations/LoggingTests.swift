import Foundation
import Herald
import HeraldCore
import HeraldTestSupport
import Logging
import Testing

/// `log.format json`: one JSON object per line with time, level, label, message, source and metadata;
/// `log.level` and `log.format` are settings like any other (issue 11).
@Suite struct LoggingTests {
    @Test func jsonEntriesAreOneObjectPerLine() throws {
        let lines = Locked<[String]>([])
        var logger = Logger(label: "herald") { label in JSONLogHandler(label: label) { line in lines.withLock { $0.append(line) } } }
        logger.logLevel = .debug
        logger[metadataKey: "herald.instance"] = "a"
        logger.info("applied migration\nwith a newline", metadata: ["herald.migration": "0001", "herald.count": "\(3)"])
        logger.trace("below the level")
        let written = lines.withLock { $0 }
        #expect(written.count == 1)
        let line = try #require(written.first)
        #expect(line.hasSuffix("\n") && line.dropLast().allSatisfy { $0 != "\n" }, "one line")
        let entry = try JSONValue.parse(Array(line.utf8))
        #expect(entry["message"] == .string("applied migration\nwith a newline"))
        #expect(entry["level"] == .string("info") && entry["label"] == .string("herald"))
        #expect(entry["herald.migration"] == .string("0001") && entry["herald.count"] == .string("3"))
        #expect(entry["herald.instance"] == .string("a"))
        guard case .string(let time)? = entry["time"] else { throw HarnessError("no time") }
        #expect(time.hasPrefix("20") && time.hasSuffix("Z"))
    }

    @Test func levelAndFormatAreSettings() throws {
        let set = try ConfigurationLoader.load(file: nil, environment: ["HERALD_LOG_LEVEL": "debug", "HERALD_LOG_FORMAT": "json"])
        #expect(set.log == LogConfiguration(level: .debug, format: .json))
        #expect(try ConfigurationLoader.load(file: nil, environment: [:]).log == LogConfiguration(level: .info, format: .text))
        #expect(throws: ConfigurationError.self) { try ConfigurationLoader.load(file: nil, environment: ["HERALD_LOG_FORMAT": "xml"]) }
        #expect(throws: ConfigurationError.self) { try ConfigurationLoader.load(file: nil, environment: ["HERALD_LOG_LEVEL": "loud"]) }
    }

    @Test(.timeLimit(.minutes(1))) func theServerLogsJSONWhenAsked() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let server = try HeraldProcess(["serve", "--port", "0"], directory: scratch.url, environment: ["HERALD_LOG_FORMAT": "json"])
        _ = try await server.waitUntilListening()
        server.process.terminate()
        #expect(try await server.waitForExit() == 0)
        let lines = server.stderr.split(separator: "\n")
        #expect(lines.count >= 2, "started and stopped at least")
        for line in lines {
            let entry = try JSONValue.parse(Array(line.utf8))
            #expect(entry["level"] != nil && entry["message"] != nil, "\(line)")
        }
        // A new database's migrations are routine: debug, not info. The stop on SIGTERM is one line.
        #expect(!lines.contains { $0.contains(#""message":"applied migration""#) })
        #expect(lines.filter { $0.contains("Herald stopped: drained and shut down") }.count == 1)
    }
}
