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
    /// `progress` hears of each migration applied as it begins, as its backfill goes, and once committed.
    @discardableResult
    public func migrate(logger: Logger, progress: MigrationProgress = .silent) async throws -> [String] {
        try await backend.write { db in
            try await Self.lock(db)
            try await db.raw(
                """
                CREATE TABLE IF NOT EXISTS herald_migrations (name TEXT PRIMARY KEY, applied_at BIGINT NOT NULL)
                """
            ).run()
        }
        try await checkNotNewer()
        // Creating a new database's schema is routine (debug); changing an existing one is worth a line each,
        // unless the caller shows each step itself (`herald migrate`).
        let upgrading = try await !appliedNames().isEmpty
        let level: Logger.Level = upgrading && progress.isSilent ? .info : .debug
        var applied: [String] = []
        for migration in migrations {
            // Unbounded: a migration's backfill takes as long as the data it rewrites.
            let step = try await backend.unboundedWrite { db -> AppliedStep? in
                try await Self.lock(db)
                let done = try await db.raw("SELECT name FROM herald_migrations WHERE name = \(bind: migration.name)").first()
                if done != nil { return nil }
                let began = ContinuousClock.now
                progress.report(.started(step: migration.name))
                for statement in migration.statements(StoreDialect(db)) {
                    try await db.raw(SQLQueryString(statement)).run()
                }
                var rows: MigrationProgress.Rows?
                if let backfill = migration.backfill {
                    let counter = BackfillProgress(step: migration.name, progress: progress)
                    try await backfill(db, counter)
                    rows = counter.rows
                }
                let now = Int64(Date().timeIntervalSince1970 * 1000)
                try await db.raw("INSERT INTO herald_migrations (name, applied_at) VALUES (\(bind: migration.name), \(bind: now))").run()
                return AppliedStep(began: began, rows: rows)
            }
            if let step {
                let duration = ContinuousClock.now - step.began
                // Reported before it is logged: a terminal's progress line ends before a log line follows it.
                progress.report(.finished(step: migration.name, rows: step.rows, duration: duration))
                let (seconds, attoseconds) = duration.components
                var metadata: Logger.Metadata = [
                    "herald.migration": "\(migration.name)",
                    "herald.migration.durationMs": "\(seconds * 1000 + attoseconds / 1_000_000_000_000_000)",
                ]
                if let rows = step.rows { metadata["herald.migration.rows"] = "\(rows.done)" }
                logger.log(level: level, "applied migration", metadata: metadata)
                applied.append(migration.name)
            }
        }
        if !applied.isEmpty { try await backend.schemaChanged() }
        return applied
    }

    /// A migration this call applied: when it began (in its transaction) and its backfill's rows.
    private struct AppliedStep: Sendable {
        let began: ContinuousClock.Instant
        let rows: MigrationProgress.Rows?
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
