import Logging
import NIOSSL
import PostgresKit
import PostgresNIO
import SQLKit
import ServiceLifecycle

/// The shared backend: a PostgreSQL database that several Herald instances use at once.
///
/// Connections come from PostgresNIO's `PostgresClient` pool (`poolSize` of them), which must be
/// `run()` for as long as the backend is used: `StoreFactory.withBackend` runs it as a service before
/// the caller's body starts and stops it after. Each write is one transaction on one pooled connection,
/// committed with `synchronous_commit = on`, so a write that returned is on the server's disk.
/// Deadlocks and serialisation failures, which PostgreSQL resolves by aborting one side, are retried.
public final class PostgresBackend: SQLBackend, Service {
    let client: PostgresClient
    let location: PostgresLocation
    private let logger: Logger
    /// Yields once `run()` has started, so the first query does not race the pool's start.
    private let started: (stream: AsyncStream<Void>, continuation: AsyncStream<Void>.Continuation) = AsyncStream.makeStream()

    /// Attempts for a write that PostgreSQL aborted as a deadlock victim or serialisation failure.
    static let writeAttempts = 5

    public init(_ location: PostgresLocation, logger: Logger) throws {
        var configuration = PostgresClient.Configuration(
            host: location.host, port: location.port, username: location.username, password: location.password,
            database: location.database, tls: try Self.tls(location.sslMode))
        configuration.options.maximumConnections = location.poolSize
        configuration.options.minimumConnections = 0
        configuration.options.connectTimeout = .seconds(5)
        // A 200 means committed on the server's disk, whatever the server's own default says.
        configuration.options.additionalStartupParameters = [("synchronous_commit", "on"), ("application_name", "herald")]
        self.client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        self.location = location
        self.logger = logger
    }

    static func tls(_ mode: PostgresLocation.SSLMode) throws -> PostgresClient.Configuration.TLS {
        switch mode {
        case .disable:
            return .disable
        case .prefer:
            var tls = TLSConfiguration.makeClientConfiguration()
            tls.certificateVerification = .none
            return .prefer(tls)
        case .require:
            var tls = TLSConfiguration.makeClientConfiguration()
            tls.certificateVerification = .none
            return .require(tls)
        case .verifyFull:
            return .require(TLSConfiguration.makeClientConfiguration())
        }
    }

    public var dialect: StoreDialect { .postgres }

    /// Runs the connection pool until the task is cancelled.
    public func run() async {
        started.continuation.yield()
        started.continuation.finish()
        await client.run()
    }

    /// Returns once `run()` has been entered (or the task is cancelled).
    func waitUntilRunning() async {
        for await _ in started.stream { return }
    }

    /// Checks that the server answers, so a wrong host or password is one clear line at start-up.
    func checkReachable() async throws {
        do {
            _ = try await client.withConnection { connection in
                try await connection.query("SELECT 1", logger: self.logger)
            }
        } catch {
            throw StoreOpenFailure(description: "database \(location) cannot be reached: \(Self.explain(error))")
        }
    }

    public func read<T: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        do {
            return try await client.withConnection { connection in
                try await body(connection.sql(queryLogLevel: nil))
            }
        } catch {
            throw Self.translate(error)
        }
    }

    public func write<T: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        var attempt = 1
        while true {
            do {
                return try await client.withConnection { connection in
                    let sql = connection.sql(queryLogLevel: nil)
                    try await sql.raw("BEGIN").run()
                    do {
                        let value = try await body(sql)
                        try await sql.raw("COMMIT").run()
                        return value
                    } catch {
                        try? await sql.raw("ROLLBACK").run()
                        throw error
                    }
                }
            } catch let error where Self.isRetryable(error) && attempt < Self.writeAttempts {
                attempt += 1
                logger.debug("write retried after a deadlock or serialisation failure", metadata: ["herald.error": "\(error)"])
                try await Task.sleep(for: .milliseconds(Int64.random(in: 1...(5 * Int64(attempt)))))
            } catch {
                throw Self.translate(error)
            }
        }
    }

    /// Runs `body` while holding a session-level advisory lock on a connection of its own, or returns
    /// nil without running it when `wait` is false and another session holds the lock. The lock goes
    /// with the session if the process dies.
    public func withLock<T: Sendable>(_ lock: StoreLock, wait: Bool, _ body: @Sendable () async throws -> T) async throws -> T? {
        do {
            return try await client.withConnection { connection -> T? in
                let sql = connection.sql(queryLogLevel: nil)
                if wait {
                    try await sql.raw("SELECT pg_advisory_lock(\(bind: lock.key))").run()
                } else {
                    let row = try await sql.raw("SELECT pg_try_advisory_lock(\(bind: lock.key)) AS taken").first()
                    guard try row?.decode(column: "taken", as: Bool.self) == true else { return nil }
                }
                do {
                    let value = try await body()
                    try await sql.raw("SELECT pg_advisory_unlock(\(bind: lock.key))").run()
                    return value
                } catch {
                    try? await sql.raw("SELECT pg_advisory_unlock(\(bind: lock.key))").run()
                    throw error
                }
            }
        } catch {
            throw Self.translate(error)
        }
    }

    /// Nothing to do: the pool closes when `run()` ends.
    public func close() async throws {}

    /// SQLSTATE 40001 (serialization_failure) and 40P01 (deadlock_detected): retrying is the cure.
    static func isRetryable(_ error: any Error) -> Bool {
        guard let error = error as? PSQLError, error.code == .server, let state = error.serverInfo?[.sqlState] else { return false }
        return state == "40001" || state == "40P01"
    }

    /// Whether the failure is the database being away (down, restarting, unreachable, out of connections
    /// or disk) rather than something wrong with the query.
    static func isUnavailable(_ error: any Error) -> Bool {
        guard let error = error as? PSQLError else { return false }
        switch error.code {
        case .connectionError, .serverClosedConnection, .clientClosedConnection, .uncleanShutdown, .poolClosed,
             .sslUnsupported, .failedToAddSSLHandler:
            return true
        case .server:
            // Class 08: connection exception; 57P01-57P03: admin shutdown, crash shutdown, cannot connect now;
            // class 53: insufficient resources (disk full, out of memory, too many connections).
            guard let state = error.serverInfo?[.sqlState] else { return false }
            return state.hasPrefix("08") || state.hasPrefix("57P") || state.hasPrefix("53")
        default:
            return false
        }
    }

    static func translate(_ error: any Error) -> any Error {
        isUnavailable(error) ? StoreUnavailable(reason: explain(error)) : error
    }

    /// A short, secret-free account of a PostgreSQL failure for an operator.
    static func explain(_ error: any Error) -> String {
        guard let error = error as? PSQLError else { return "\(error)" }
        if let message = error.serverInfo?[.message] {
            return "\(message)\(error.serverInfo?[.sqlState].map { " (SQLSTATE \($0))" } ?? "")"
        }
        if let underlying = error.underlying { return "\(error.code): \(underlying)" }
        return "\(error.code)"
    }
}
