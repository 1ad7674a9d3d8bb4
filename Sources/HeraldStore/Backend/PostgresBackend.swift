import HeraldCore
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

    /// libpq's meaning of `sslmode`: nil for no TLS; the certificate is checked only with `verify-full`.
    static func tlsConfiguration(_ mode: PostgresLocation.SSLMode) -> TLSConfiguration? {
        guard mode != .disable else { return nil }
        var tls = TLSConfiguration.makeClientConfiguration()
        if mode != .verifyFull { tls.certificateVerification = .none }
        return tls
    }

    /// The pool's TLS setting for `mode`.
    static func tls(_ mode: PostgresLocation.SSLMode) throws -> PostgresClient.Configuration.TLS {
        guard let tls = tlsConfiguration(mode) else { return .disable }
        return mode == .prefer ? .prefer(tls) : .require(tls)
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

    /// Checks that the server answers, so a wrong host or password is one clear line at start-up. It
    /// opens a connection of its own (the pool would retry for a minute before giving up).
    func checkReachable() async throws {
        do {
            let connection = try await openConnection()
            try? await connection.close()
        } catch {
            throw StoreOpenFailure(description: "database \(location) cannot be reached: \(Self.explain(error))")
        }
    }

    /// A connection outside the pool, with the pool's settings, given up after 10 s.
    func openConnection() async throws -> PostgresConnection {
        var configuration = PostgresConnection.Configuration(
            host: location.host, port: location.port, username: location.username, password: location.password,
            database: location.database, tls: try Self.connectionTLS(location.sslMode))
        configuration.options.connectTimeout = .seconds(5)
        let settings = configuration
        return try await Self.withDeadline(.seconds(10), onTimeout: {}) {
            try await PostgresConnection.connect(
                on: PostgresClient.defaultEventLoopGroup.next(), configuration: settings,
                id: 0, logger: self.logger)
        }
    }

    public func listen(_ channel: String, listening: @escaping @Sendable () -> Void, _ body: @escaping @Sendable (String) -> Void) async {
        while !Task.isCancelled {
            do {
                let connection = try await openConnection()
                do {
                    try await connection.listen(on: channel) { notifications in
                        listening()
                        for try await notification in notifications { body(notification.payload) }
                    }
                } catch {
                    try? await connection.close()
                    throw error
                }
                try? await connection.close()
            } catch {
                if Task.isCancelled { return }
                logger.warning(
                    "LISTEN \(channel) lost its connection; listening again in 1 s", metadata: ["error": "\(Self.explain(error))"])
                try? await Task.sleep(for: .seconds(1))
            }
        }
    }

    public func read<T: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        do {
            return try await withLeasedConnection { connection in
                try await withTaskExecutorPreference(EventLoopExecutor(connection.eventLoop)) {
                    try await body(PostgresSession(connection))
                }
            }
        } catch {
            throw Self.translate(error)
        }
    }

    public func write<T: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        try await write(bounded: true, body)
    }

    public func unboundedWrite<T: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        try await write(bounded: false, body)
    }

    private func write<T: Sendable>(bounded: Bool, _ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        var attempt = 1
        while true {
            do {
                return try await withLeasedConnection(bounded: bounded) { connection in
                    try await withTaskExecutorPreference(EventLoopExecutor(connection.eventLoop)) {
                        let sql = PostgresSession(connection)
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

    /// How long a caller waits for a pooled connection before Herald checks whether the database can be
    /// reached at all. While PostgreSQL is down the pool keeps trying to connect and queues requests;
    /// without this check a request would wait for the pool's circuit breaker (a minute) instead of
    /// answering 503. A database that answers but is busy is waited for, up to `maxLeaseWait`.
    static let leaseTimeout: Duration = .seconds(5)
    /// The longest wait for a pooled connection while the database can be reached (overload).
    static let maxLeaseWait: Duration = .seconds(60)

    /// Runs `body` on a pooled connection. Waiting for the connection is bounded by `leaseTimeout`, and
    /// (when `bounded`) waiting for `body`'s answer by `operationTimeout`, after which the connection is
    /// closed: a write cut off that way may have committed or not, as with any lost connection.
    func withLeasedConnection<T: Sendable>(
        bounded: Bool = true,
        _ body: @escaping @Sendable (PostgresConnection) async throws -> T
    ) async throws -> T {
        let state = LeaseState()
        return try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask {
                do {
                    return try await self.client.withConnection { connection in
                        guard state.take(LeaseState.leased)
                        else { throw StoreUnavailable(reason: "no database connection within \(Self.leaseTimeout)") }
                        guard bounded else { return try await body(connection) }
                        return try await Self.withDeadline(Self.operationTimeout, onTimeout: { try? await connection.close() }) {
                            try await body(connection)
                        }
                    }
                } catch  where !state.isLeased {
                    // Failed before a connection was had (pool shut down, connection attempts failing).
                    throw StoreUnavailable(reason: Self.explain(error))
                }
            }
            group.addTask {
                var waited = Duration.zero
                while true {
                    // Cancelled (the caller is going away): not a timeout; the lease child decides.
                    guard (try? await Task.sleep(for: Self.leaseTimeout)) != nil else { return nil }
                    waited += Self.leaseTimeout
                    if state.isLeased { return nil }
                    // A slow pool on a live database (overload) is waited for; an unreachable one is not.
                    if waited < Self.maxLeaseWait, await self.isReachable() { continue }
                    guard state.take(LeaseState.timedOut) else { return nil }
                    throw StoreUnavailable(reason: "no database connection within \(waited)")
                }
            }
            while let next = try await group.next() {
                if let value = next {
                    group.cancelAll()
                    return value
                }
            }
            throw StoreUnavailable(reason: "the database connection ended without an answer")
        }
    }

    /// Runs `body` while holding a session-level advisory lock on a connection of its own, or returns
    /// nil without running it when `wait` is false and another session holds the lock. The lock goes
    /// with the session if the process dies.
    public func withLock<T: Sendable>(_ lock: StoreLock, wait: Bool, _ body: @escaping @Sendable () async throws -> T) async throws -> T? {
        do {
            // Not bounded: the body is a whole sweep, which may take minutes.
            return try await withLeasedConnection(bounded: false) { connection -> T? in
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

    /// Whether a new connection to the server can be opened now (outside the pool, closed at once).
    func isReachable() async -> Bool {
        guard let connection = try? await openConnection() else { return false }
        try? await connection.close()
        return true
    }

    /// The same TLS choice as the pool's (`tls(_:)`), for a single connection.
    static func connectionTLS(_ mode: PostgresLocation.SSLMode) throws -> PostgresConnection.Configuration.TLS {
        guard let tls = tlsConfiguration(mode) else { return .disable }
        let context = try NIOSSLContext(configuration: tls)
        return mode == .prefer ? .prefer(context) : .require(context)
    }

    /// Nothing to do: the pool closes when `run()` ends.
    public func close() async throws {}
}
