import Foundation

/// Where the store lives, parsed from a `database.url` setting.
///
/// Accepted forms: `sqlite:///absolute/path.sqlite`, `sqlite://relative/path.sqlite`,
/// `sqlite:relative.sqlite`, a bare file path, `sqlite::memory:` (tests), and
/// `postgres://user[:password]@host[:port][,host[:port]…]/database[?sslmode=…&target_session_attrs=…]`
/// (or `postgresql://`): several hosts as libpq takes them, for a primary and its standbys.
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

/// A PostgreSQL server (or a primary and its standbys), database and login, from a `postgres://` URL plus
/// the settings that are not in it.
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

    /// libpq's `target_session_attrs` words that Herald honours: which of the hosts it keeps.
    public enum TargetSessionAttrs: String, Sendable, CaseIterable {
        /// The first host, in the URL's order, whose sessions accept writes (`SHOW transaction_read_only`
        /// is `off`): the primary. The default, as Herald writes.
        case readWrite = "read-write"
        /// The first host that accepts a connection.
        case any
    }

    /// One of the URL's hosts.
    public struct Endpoint: Sendable, Hashable, CustomStringConvertible {
        public var host: String
        public var port: Int

        public init(host: String, port: Int = 5432) {
            self.host = host
            self.port = port
        }

        /// `host:port`, an IPv6 address in brackets: how logs and the `host` metric label name it.
        public var description: String { "\(host.contains(":") ? "[\(host)]" : host):\(port)" }
    }

    /// In the URL's order, which is the order they are tried in.
    public var hosts: [Endpoint]
    public var username: String
    /// nil: none in the URL; `database.password` / `HERALD_DATABASE_PASSWORD` / `database.passwordFile` may set it.
    public var password: String?
    public var database: String
    public var sslMode: SSLMode
    public var targetSessionAttrs: TargetSessionAttrs
    /// Connections in the pool (`database.poolSize`).
    public var poolSize: Int
    public static let defaultPoolSize = 16

    /// The first host.
    public var host: String { hosts[0].host }
    public var port: Int { hosts[0].port }

    public init(
        host: String, port: Int = 5432, username: String, password: String? = nil, database: String,
        sslMode: SSLMode = .prefer, poolSize: Int = defaultPoolSize
    ) {
        self.init(
            hosts: [Endpoint(host: host, port: port)], username: username, password: password, database: database, sslMode: sslMode,
            poolSize: poolSize)
    }

    /// `hosts` must not be empty.
    public init(
        hosts: [Endpoint], username: String, password: String? = nil, database: String, sslMode: SSLMode = .prefer,
        targetSessionAttrs: TargetSessionAttrs = .readWrite, poolSize: Int = defaultPoolSize
    ) {
        precondition(!hosts.isEmpty, "a PostgreSQL location needs a host")
        self.hosts = hosts
        self.username = username
        self.password = password
        self.database = database
        self.sslMode = sslMode
        self.targetSessionAttrs = targetSessionAttrs
        self.poolSize = poolSize
    }

    init(parsing text: String) throws(DatabaseURL.Invalid) {
        let shown = DatabaseURL.redacting(text)
        func invalid(_ why: String) -> DatabaseURL.Invalid { DatabaseURL.Invalid(description: "database url '\(shown)': \(why)") }
        // URLComponents takes one host: a list (`h1:5432,h2:5433`) is read here and the first host stands in for it.
        let (single, listed) = try Self.splitHostList(text, invalid)
        guard let components = URLComponents(string: single), let host = components.host, !host.isEmpty else {
            throw invalid("expected postgres://user:password@host:port/database")
        }
        guard let user = components.user, !user.isEmpty else { throw invalid("names no user (postgres://USER@host/database)") }
        let database = String(components.path.drop { $0 == "/" })
        guard !database.isEmpty, !database.contains("/") else { throw invalid("names no database (postgres://user@host/DATABASE)") }
        var sslMode = SSLMode.prefer
        var attrs = TargetSessionAttrs.readWrite
        var poolSize = Self.defaultPoolSize
        for item in components.queryItems ?? [] {
            switch item.name {
            case "sslmode":
                guard let mode = item.value.flatMap(SSLMode.init(rawValue:)) else {
                    throw invalid("sslmode must be one of \(SSLMode.allCases.map(\.rawValue).joined(separator: ", "))")
                }
                sslMode = mode
            case "target_session_attrs":
                guard let value = item.value.flatMap(TargetSessionAttrs.init(rawValue:)) else {
                    throw invalid("target_session_attrs must be read-write (the primary, the default) or any")
                }
                attrs = value
            case "poolSize", "pool_size":
                guard let size = item.value.flatMap(Int.init), (2...1000).contains(size) else {
                    throw invalid("poolSize must be 2 to 1000")
                }
                poolSize = size
            default:
                throw invalid("unknown parameter '\(item.name)' (Herald knows sslmode, target_session_attrs and poolSize)")
            }
        }
        let hosts = listed ?? [Endpoint(host: host, port: components.port ?? 5432)]
        for endpoint in hosts where !(1...65535).contains(endpoint.port) {
            throw invalid("port \(endpoint.port) is not a port number")
        }
        guard Set(hosts).count == hosts.count else { throw invalid("names a host twice") }
        self.init(
            hosts: hosts, username: components.percentEncodedUser?.removingPercentEncoding ?? user,
            password: components.percentEncodedPassword.flatMap { $0.removingPercentEncoding }.flatMap { $0.isEmpty ? nil : $0 },
            database: database.removingPercentEncoding ?? database, sslMode: sslMode, targetSessionAttrs: attrs, poolSize: poolSize)
    }

    /// The URL with its host list (if it has one) replaced by the first host, and the list.
    private static func splitHostList(
        _ text: String, _ invalid: (String) -> DatabaseURL.Invalid
    ) throws(DatabaseURL.Invalid) -> (String, [Endpoint]?) {
        guard let scheme = text.range(of: "://") else { return (text, nil) }
        let rest = text[scheme.upperBound...]
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        let hostStart = authority.lastIndex(of: "@").map { authority.index(after: $0) } ?? authority.startIndex
        let list = authority[hostStart...]
        guard list.contains(",") else { return (text, nil) }
        var endpoints: [Endpoint] = []
        for item in list.split(separator: ",", omittingEmptySubsequences: false) {
            var host = Substring(item)
            var port = 5432
            if host.hasPrefix("[") {
                guard let close = host.firstIndex(of: "]") else { throw invalid("host '\(item)' has no closing ]") }
                let after = host[host.index(after: close)...]
                if after.hasPrefix(":") {
                    guard let value = Int(after.dropFirst()) else { throw invalid("host '\(item)' has no port number after ':'") }
                    port = value
                } else if !after.isEmpty {
                    throw invalid("host '\(item)' is not [address]:port")
                }
                host = host[host.index(after: host.startIndex)..<close]
            } else if let colon = host.lastIndex(of: ":") {
                guard let value = Int(host[host.index(after: colon)...]) else {
                    throw invalid("host '\(item)' has no port number after ':'")
                }
                port = value
                host = host[..<colon]
            }
            guard !host.isEmpty else { throw invalid("has an empty host in its list") }
            endpoints.append(Endpoint(host: String(host), port: port))
        }
        let first = endpoints[0].host.contains(":") ? "[\(endpoints[0].host)]" : endpoints[0].host
        return (text.replacingCharacters(in: list.startIndex..<list.endIndex, with: first), endpoints)
    }

    public var description: String {
        let hosts = self.hosts.map(\.description).joined(separator: ",")
        let attrs = targetSessionAttrs == .readWrite ? "" : "?target_session_attrs=\(targetSessionAttrs.rawValue)"
        return "postgres://\(username)\(password == nil ? "" : ":***")@\(hosts)/\(database)\(attrs)"
    }
}
