import Foundation

/// Where the store lives, parsed from a `database.url` setting.
///
/// Accepted forms: `sqlite:///absolute/path.sqlite`, `sqlite://relative/path.sqlite`,
/// `sqlite:relative.sqlite`, a bare file path, `sqlite::memory:` (tests), and
/// `postgres://user[:password]@host[:port]/database[?sslmode=disable|prefer|require|verify-full]`
/// (or `postgresql://`).
public enum DatabaseURL: Sendable, Equatable, CustomStringConvertible {
    case sqliteFile(path: String)
    case sqliteMemory
    case postgres(PostgresLocation)

    /// Raised for a URL Herald cannot use; the message is for an operator.
    public struct Invalid: Error, CustomStringConvertible {
        public let description: String
    }

    /// Whether only one Herald server uses this database (SQLite): then leases left by a killed
    /// process can be taken back at start instead of waiting for them to expire.
    public var isSingleServer: Bool {
        switch self {
        case .sqliteFile, .sqliteMemory: true
        case .postgres: false
        }
    }

    public init(parsing text: String) throws(Invalid) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed == "sqlite::memory:" || trimmed == "sqlite://:memory:" {
            self = .sqliteMemory
            return
        }
        if trimmed.hasPrefix("postgres:") || trimmed.hasPrefix("postgresql:") {
            self = .postgres(try PostgresLocation(parsing: trimmed))
            return
        }
        var path: Substring
        if trimmed.hasPrefix("sqlite://") {
            path = trimmed.dropFirst("sqlite://".count)
        } else if trimmed.hasPrefix("sqlite:") {
            path = trimmed.dropFirst("sqlite:".count)
        } else if trimmed.contains("://") {
            throw Invalid(
                description:
                    "database url '\(Self.redacting(trimmed))': unsupported scheme; use sqlite:///path/to/herald.sqlite or postgres://user@host:5432/herald"
            )
        } else {
            path = Substring(trimmed)
        }
        if let query = path.firstIndex(of: "?") { path = path[..<query] }
        guard !path.isEmpty else { throw Invalid(description: "database url '\(trimmed)' names no file") }
        self = .sqliteFile(path: String(path))
    }

    /// The URL as an operator may see it: a PostgreSQL password is never shown.
    public var description: String {
        switch self {
        case .sqliteFile(let path): "sqlite://\(path)"
        case .sqliteMemory: "sqlite::memory:"
        case .postgres(let location): location.description
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

/// A PostgreSQL server, database and login, from a `postgres://` URL plus the settings that are not in it.
public struct PostgresLocation: Sendable, Equatable, CustomStringConvertible {
    /// libpq's `sslmode` words that Herald honours.
    public enum SSLMode: String, Sendable, CaseIterable {
        /// Plain TCP.
        case disable
        /// TLS when the server offers it, plain otherwise (libpq's default).
        case prefer
        /// TLS always, without checking the server's certificate (as libpq's `require`).
        case require
        /// TLS always, with the certificate checked against the system's CAs and the host name.
        case verifyFull = "verify-full"
    }

    public var host: String
    public var port: Int
    public var username: String
    /// nil: none in the URL; `database.password` / `HERALD_DATABASE_PASSWORD` / `database.passwordFile` may set it.
    public var password: String?
    public var database: String
    public var sslMode: SSLMode
    /// Connections in the pool (`database.poolSize`).
    public var poolSize: Int
    public static let defaultPoolSize = 16

    public init(
        host: String, port: Int = 5432, username: String, password: String? = nil, database: String,
        sslMode: SSLMode = .prefer, poolSize: Int = defaultPoolSize
    ) {
        self.host = host
        self.port = port
        self.username = username
        self.password = password
        self.database = database
        self.sslMode = sslMode
        self.poolSize = poolSize
    }

    init(parsing text: String) throws(DatabaseURL.Invalid) {
        let shown = DatabaseURL.redacting(text)
        func invalid(_ why: String) -> DatabaseURL.Invalid { DatabaseURL.Invalid(description: "database url '\(shown)': \(why)") }
        guard let components = URLComponents(string: text), let host = components.host, !host.isEmpty else {
            throw invalid("expected postgres://user:password@host:port/database")
        }
        guard let user = components.user, !user.isEmpty else { throw invalid("names no user (postgres://USER@host/database)") }
        let database = String(components.path.drop { $0 == "/" })
        guard !database.isEmpty, !database.contains("/") else { throw invalid("names no database (postgres://user@host/DATABASE)") }
        var sslMode = SSLMode.prefer
        var poolSize = Self.defaultPoolSize
        for item in components.queryItems ?? [] {
            switch item.name {
            case "sslmode":
                guard let mode = item.value.flatMap(SSLMode.init(rawValue:)) else {
                    throw invalid("sslmode must be one of \(SSLMode.allCases.map(\.rawValue).joined(separator: ", "))")
                }
                sslMode = mode
            case "poolSize", "pool_size":
                guard let size = item.value.flatMap(Int.init), (2...1000).contains(size) else {
                    throw invalid("poolSize must be 2 to 1000")
                }
                poolSize = size
            default:
                throw invalid("unknown parameter '\(item.name)' (Herald knows sslmode and poolSize)")
            }
        }
        let port = components.port ?? 5432
        guard (1...65535).contains(port) else { throw invalid("port \(port) is not a port number") }
        self.init(
            host: host, port: port, username: components.percentEncodedUser?.removingPercentEncoding ?? user,
            password: components.percentEncodedPassword.flatMap { $0.removingPercentEncoding }.flatMap { $0.isEmpty ? nil : $0 },
            database: database.removingPercentEncoding ?? database, sslMode: sslMode, poolSize: poolSize)
    }

    public var description: String {
        let host = self.host.contains(":") ? "[\(self.host)]" : self.host
        return "postgres://\(username)\(password == nil ? "" : ":***")@\(host):\(port)/\(database)"
    }
}
