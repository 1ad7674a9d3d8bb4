import SQLKit

/// A SQL database as the store sees it: reads, and writes that are each one atomic, durable transaction.
///
/// The store's queries are written once against SQLKit; a backend decides how connections, locking and
/// commits work (SQLite: one writer with group commit; PostgreSQL later: a pool, one transaction per write).
public protocol SQLBackend: Sendable {
    /// Runs `body` against committed data. It must not write.
    func read<T: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T

    /// Runs `body` in a transaction. When this returns, the transaction is committed and durable;
    /// when it throws, nothing `body` wrote is kept.
    func write<T: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T

    /// Closes every connection. The backend cannot be used afterwards.
    func close() async throws
}
