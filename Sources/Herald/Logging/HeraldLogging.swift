import Foundation
import HeraldCore
import Logging

/// `log.level` and `log.format`.
public struct LogConfiguration: Sendable, Equatable {
    public enum Format: String, Sendable, Equatable, CaseIterable {
        /// swift-log's stream format: one human-readable line per entry.
        case text
        /// One JSON object per line: `time`, `level`, `label`, `message`, `source`, and each metadata key.
        case json
    }

    public var level: Logger.Level
    public var format: Format

    public init(level: Logger.Level = .info, format: Format = .text) {
        self.level = level
        self.format = format
    }

    /// The logger Herald passes to everything it runs, writing to standard error.
    public func makeLogger(label: String = "herald") -> Logger {
        var logger =
            switch format {
            case .text: Logger(label: label) { StreamLogHandler.standardError(label: $0) }
            case .json: Logger(label: label) { JSONLogHandler(label: $0) }
            }
        logger.logLevel = level
        return logger
    }
}

/// Writes each entry as one JSON object on its own line, for log collectors. Metadata values are
/// written as strings (nested ones flattened to their text); a line is written whole under a lock.
public struct JSONLogHandler: LogHandler {
    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level = .info
    let label: String
    let write: @Sendable (String) -> Void

    public init(label: String, write: @escaping @Sendable (String) -> Void = JSONLogHandler.standardError) {
        self.label = label
        self.write = write
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var fields: [String: JSONValue] = [:]
        for (key, value) in metadata.merging(event.metadata ?? [:], uniquingKeysWith: { _, new in new }) {
            fields[key] = .string("\(value)")
        }
        fields["time"] = .string(Date().formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true)))
        fields["level"] = .string(event.level.rawValue)
        fields["label"] = .string(label)
        fields["message"] = .string("\(event.message)")
        fields["source"] = .string(event.source)
        let line = (try? Self.encoder.encode(JSONValue.object(fields))).map { String(decoding: $0, as: UTF8.self) }
        write((line ?? #"{"message":"a log entry could not be encoded"}"#) + "\n")
    }

    private static let lock = Locked(())
    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    @Sendable public static func standardError(_ line: String) {
        lock.withLock { _ in FileHandle.standardError.write(Data(line.utf8)) }
    }
}
