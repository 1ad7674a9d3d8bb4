import Foundation
import Logging
import SQLKit

/// Applies the migrations a database has not seen yet, each in one transaction with its bookkeeping row.
///
/// Instances that start together against one PostgreSQL database migrate one at a time: every
/// migration transaction first takes the migrations advisory lock, and re-checks under it whether
/// another instance applied the migration meanwhile. A database that records a migration this binary
/// does not know was migrated by a newer Herald: this one refuses it rather than run on a schema it
/// cannot read.
public struct Migrator: Sendable {
    let backend: any SQLBackend
    let migrations: [Migration]

    /// The database was migrated by a newer Herald; the message is one line for an operator.
    public struct SchemaTooNew: Error, CustomStringConvertible {
        public let unknown: [String]
        public var description: String {
            "the database schema is newer than this Herald (it has migration\(unknown.count == 1 ? "" : "s") \(unknown.joined(separator: ", ")), which this binary does not know); run a Herald at least as new as the one that migrated it"
        }
    }

    public init(backend: any SQLBackend) {
        self.init(backend: backend, migrations: Schema.migrations)
    }

    init(backend: any SQLBackend, migrations: [Migration]) {
        self.backend = backend
        self.migrations = migrations
    }

    /// Returns the names of the migrations applied by this call (empty when the schema was current).
    @discardableResult
    public func migrate(logger: Logger) async throws -> [String] {
        try await backend.write { db in
            try await Self.lock(db)
            try await db.raw(
                """
                CREATE TABLE IF NOT EXISTS herald_migrations (name TEXT PRIMARY KEY, applied_at BIGINT NOT NULL)
                """
            ).run()
        }
        try await checkNotNewer()
        // Creating a new database's schema is routine (debug); changing an existing one is worth a line each.
        let upgrading = try await !appliedNames().isEmpty
        var applied: [String] = []
        for migration in migrations {
            // Unbounded: a migration's backfill takes as long as the data it rewrites.
            let didApply = try await backend.unboundedWrite { db in
                try await Self.lock(db)
                let done = try await db.raw("SELECT name FROM herald_migrations WHERE name = \(bind: migration.name)").first()
                if done != nil { return false }
                for statement in migration.statements(StoreDialect(db)) {
                    try await db.raw(SQLQueryString(statement)).run()
                }
                try await migration.backfill?(db)
                let now = Int64(Date().timeIntervalSince1970 * 1000)
                try await db.raw("INSERT INTO herald_migrations (name, applied_at) VALUES (\(bind: migration.name), \(bind: now))").run()
                return true
            }
            if didApply {
                logger.log(
                    level: upgrading ? .info : .debug, "applied migration", metadata: ["herald.migration": "\(migration.name)"])
                applied.append(migration.name)
            }
        }
        if !applied.isEmpty { try await backend.schemaChanged() }
        return applied
    }

    /// The migrations this binary knows that the database has not applied (empty: current).
    public func pending() async throws -> [String] {
        let done = try await appliedNames()
        return migrations.map(\.name).filter { !done.contains($0) }
    }

    /// Throws `SchemaTooNew` when the database records a migration this binary does not know.
    public func checkNotNewer() async throws {
        let known = Set(migrations.map(\.name))
        let unknown = try await appliedNames().filter { !known.contains($0) }.sorted()
        if !unknown.isEmpty { throw SchemaTooNew(unknown: unknown) }
    }

    private func appliedNames() async throws -> Set<String> {
        try await backend.read { db in
            let rows = try await db.raw("SELECT name FROM herald_migrations").all()
            return Set(try rows.map { try $0.decode(column: "name", as: String.self) })
        }
    }

    private static func lock(_ db: any SQLDatabase) async throws {
        if let lock = StoreDialect(db).transactionLock(.migrations) { try await db.raw(lock).run() }
    }
}
