import Foundation

/// Where the store lives, parsed from a `database.url` setting.
///
/// Accepted forms: `sqlite:///absolute/path.sqlite`, `sqlite://relative/path.sqlite`,
/// `sqlite:relative.sqlite`, a bare file path, and `sqlite::memory:` (tests).
public enum DatabaseURL: Sendable, Equatable, CustomStringConvertible {
    case sqliteFile(path: String)
    case sqliteMemory

    /// Raised for a URL Herald cannot use; the message is for an operator.
    public struct Invalid: Error, CustomStringConvertible {
        public let description: String
    }

    /// Whether only one Herald server uses this database (SQLite): then leases left by a killed
    /// process can be taken back at start instead of waiting for them to expire.
    public var isSingleServer: Bool {
        switch self {
        case .sqliteFile, .sqliteMemory: true
        }
    }

    public init(parsing text: String) throws(Invalid) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed == "sqlite::memory:" || trimmed == "sqlite://:memory:" {
            self = .sqliteMemory
            return
        }
        if trimmed.hasPrefix("postgres:") || trimmed.hasPrefix("postgresql:") {
            throw Invalid(description: "database url '\(Self.redacting(trimmed))': the PostgreSQL backend is not available in this version; use a sqlite:// url")
        }
        var path: Substring
        if trimmed.hasPrefix("sqlite://") {
            path = trimmed.dropFirst("sqlite://".count)
        } else if trimmed.hasPrefix("sqlite:") {
            path = trimmed.dropFirst("sqlite:".count)
        } else if trimmed.contains("://") {
            throw Invalid(description: "database url '\(Self.redacting(trimmed))': unsupported scheme; use sqlite:///path/to/herald.sqlite")
        } else {
            path = Substring(trimmed)
        }
        if let query = path.firstIndex(of: "?") { path = path[..<query] }
        guard !path.isEmpty else { throw Invalid(description: "database url '\(trimmed)' names no file") }
        self = .sqliteFile(path: String(path))
    }

    public var description: String {
        switch self {
        case .sqliteFile(let path): "sqlite://\(path)"
        case .sqliteMemory: "sqlite::memory:"
        }
    }

    /// Hides a password in `scheme://user:password@host` before the URL reaches a message.
    static func redacting(_ url: String) -> String {
        guard let schemeEnd = url.range(of: "://"), let at = url.lastIndex(of: "@"), at > schemeEnd.upperBound else { return url }
        let credentials = url[schemeEnd.upperBound..<at]
        guard let colon = credentials.firstIndex(of: ":") else { return url }
        return String(url[..<colon]) + ":***" + String(url[at...])
    }
}

