import HeraldCore
import HeraldMetrics
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
/// the caller's body starts and stops it after. A URL with several hosts (a primary and its standbys)
/// has one pool per host, and `PostgresPrimary` says which one is used: the primary, found again after
/// a failover (requests answer 503 meanwhile). Each write is one transaction on one pooled connection,
/// committed with `synchronous_commit = on`, so a write that returned is on the server's disk.
/// Deadlocks and serialisation failures, which PostgreSQL resolves by aborting one side, are retried.
public final class PostgresBackend: SQLBackend, Service {
    /// One pool per host of the URL, in its order.
    let clients: [PostgresClient]
    let location: PostgresLocation
    let primary: PostgresPrimary
    let logger: Logger
    /// Yields once `run()` has started, so the first query does not race the pool's start.
    private let started: (stream: AsyncStream<Void>, continuation: AsyncStream<Void>.Continuation) = AsyncStream.makeStream()

    /// Attempts for a write that PostgreSQL aborted as a deadlock victim or serialisation failure.
    static let writeAttempts = 5

    public init(_ location: PostgresLocation, logger: Logger, metrics: HeraldMetrics = .disabled) throws {
        let tls = try Self.tls(location.sslMode)
        self.clients = location.hosts.map { endpoint in
            var configuration = PostgresClient.Configuration(
                host: endpoint.host, port: endpoint.port, username: location.username, password: location.password,
                database: location.database, tls: tls)
            configuration.options.maximumConnections = location.poolSize
            configuration.options.minimumConnections = 0
            configuration.options.connectTimeout = .seconds(5)
            // A 200 means committed on the server's disk (and, with synchronous replication, on a standby's),
            // whatever the server's own default says.
            configuration.options.additionalStartupParameters = [("synchronous_commit", "on"), ("application_name", "herald")]
            return PostgresClient(configuration: configuration, backgroundLogger: logger)
        }
        self.location = location
        self.logger = logger
        let connectionTLS = try Self.connectionTLS(location.sslMode)
        self.primary = PostgresPrimary(
            hosts: location.hosts, attrs: location.targetSessionAttrs, logger: logger, metrics: metrics,
            connect: { endpoint in try await Self.openConnection(location, endpoint, tls: connectionTLS, logger: logger) })
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

    /// Runs the connection pools, and the search for the primary when there are several hosts, until the
    /// task is cancelled.
    public func run() async {
        started.continuation.yield()
        started.continuation.finish()
        await withDiscardingTaskGroup { group in
            for client in clients { group.addTask { await client.run() } }
            if clients.count > 1 {
                group.addTask {
                    await withTaskCancellationHandler {
                        await self.primary.run()
                    } onCancel: {
                        self.primary.finish()
                    }
                }
            }
        }
    }

    /// Returns once `run()` has been entered (or the task is cancelled).
    func waitUntilRunning() async {
        for await _ in started.stream { return }
    }

    /// Checks that the server answers, so a wrong host or password is one clear line at start-up. It
    /// opens a connection of its own (the pool would retry for a minute before giving up). With several
    /// hosts, it finds the one to use (the primary) and fails if none qualifies.
    func checkReachable() async throws {
        guard clients.count == 1 else {
            do {
                try await primary.establish()
            } catch let failure as StoreOpenFailure {
                throw StoreOpenFailure(description: "database \(location): \(failure.description)")
            }
            return
        }
        do {
            let connection = try await openConnection()
            try? await connection.close()
        } catch {
            throw StoreOpenFailure(description: "database \(location) cannot be reached: \(Self.explain(error))")
        }
    }

    /// A connection outside the pool to the host in use (the first while none is), with the pool's settings,
    /// given up after 10 s.
    func openConnection() async throws -> PostgresConnection {
        try await openConnection(to: primary.current?.index ?? 0)
    }

    func openConnection(to index: Int) async throws -> PostgresConnection {
        try await Self.openConnection(location, location.hosts[index], tls: try Self.connectionTLS(location.sslMode), logger: logger)
    }

    static func openConnection(
        _ location: PostgresLocation, _ endpoint: PostgresLocation.Endpoint, tls: PostgresConnection.Configuration.TLS, logger: Logger
    ) async throws -> PostgresConnection {
        var configuration = PostgresConnection.Configuration(
            host: endpoint.host, port: endpoint.port, username: location.username, password: location.password,
            database: location.database, tls: tls)
        configuration.options.connectTimeout = .seconds(5)
        let settings = configuration
        return try await withDeadline(.seconds(10), onTimeout: {}) {
            try await PostgresConnection.connect(
                on: PostgresClient.defaultEventLoopGroup.next(), configuration: settings,
                id: 0, logger: logger)
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
                            // A host that is no longer the primary is not asked to roll back (seen: with PostgresNIO
                            // 1.33 a ROLLBACK after SQLSTATE 25006 was never answered); its connection is closed.
                            if Self.failoverSignal(error) != .notPrimary { try? await sql.raw("ROLLBACK").run() }
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

    /// Whether a new connection to host `index` can be opened now (outside the pool, closed at once).
    func isReachable(_ index: Int) async -> Bool {
        guard let connection = try? await openConnection(to: index) else { return false }
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
