import SQLKit

/// A SQL database as the store sees it: reads, and writes that are each one atomic, durable transaction.
///
/// The store's queries are written once against SQLKit; a backend decides how connections, locking and
/// commits work (SQLite: one writer with group commit; PostgreSQL: a pool, one transaction per write).
public protocol SQLBackend: Sendable {
    /// Which SQL spellings the backend needs where they differ.
    var dialect: StoreDialect { get }

    /// Runs `body` against committed data. It must not write.
    func read<T: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T

    /// Runs `body` in a transaction. When this returns, the transaction is committed and durable;
    /// when it throws, nothing `body` wrote is kept.
    func write<T: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T

    /// `write` without a time limit on the transaction, for work whose size grows with the data
    /// (a migration's backfill); a backend that bounds ordinary writes does not bound this one.
    func unboundedWrite<T: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T

    /// Runs `body` while this process holds `lock` against every other process using the database.
    /// With `wait` false, returns nil at once (without running `body`) when another process holds it.
    func withLock<T: Sendable>(_ lock: StoreLock, wait: Bool, _ body: @escaping @Sendable () async throws -> T) async throws -> T?

    /// Closes every connection. The backend cannot be used afterwards.
    func close() async throws

    /// The schema changed (a migration ran): connections that cached the old one must reload it before
    /// their next query.
    func schemaChanged() async throws

    /// Until the task is cancelled, calls `body` with the payload of each notification that any process
    /// sends on `channel` (PostgreSQL LISTEN/NOTIFY, on a connection of its own), and `listening` each time
    /// it starts listening: first, and again after a lost connection, when notifications in between
    /// may have been missed. SQLite, used by one process, has none: it only waits to be cancelled.
    func listen(_ channel: String, listening: @escaping @Sendable () -> Void, _ body: @escaping @Sendable (String) -> Void) async
}

extension SQLBackend {
    public func schemaChanged() async throws {}

    public func listen(_ channel: String, listening: @escaping @Sendable () -> Void, _ body: @escaping @Sendable (String) -> Void) async {
        while !Task.isCancelled { try? await Task.sleep(for: .seconds(3600)) }
    }

    /// Whose clock decides leases and due times: the database's when several servers may share it.
    public var leaseClock: StoreClock { dialect.databaseNow == nil ? .caller : .database }
}

/// The database cannot be reached or cannot take writes right now (down, restarting, out of space):
/// requests answer 503 and the work is retried later. `reason` carries no secrets.
public struct StoreUnavailable: Error, CustomStringConvertible {
    public let reason: String
    public init(reason: String) { self.reason = reason }
    public var description: String { "database unavailable: \(reason)" }
}

/// A database that could not be opened at start-up; the message is one line for an operator.
public struct StoreOpenFailure: Error, CustomStringConvertible {
    public let description: String
    public init(description: String) { self.description = description }
}
