import Foundation
import Logging
import SQLKit

/// Applies the migrations a database has not seen yet, each in one transaction with its bookkeeping row.
public struct Migrator: Sendable {
    let backend: any SQLBackend
    let migrations: [Migration]

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
            try await db.raw("""
                CREATE TABLE IF NOT EXISTS herald_migrations (name TEXT PRIMARY KEY, applied_at BIGINT NOT NULL)
                """).run()
        }
        var applied: [String] = []
        for migration in migrations {
            let didApply = try await backend.write { db in
                let done = try await db.raw("SELECT name FROM herald_migrations WHERE name = \(bind: migration.name)").first()
                if done != nil { return false }
                for statement in migration.statements(SchemaDialect(db)) {
                    try await db.raw(SQLQueryString(statement)).run()
                }
                let now = Int64(Date().timeIntervalSince1970 * 1000)
                try await db.raw("INSERT INTO herald_migrations (name, applied_at) VALUES (\(bind: migration.name), \(bind: now))").run()
                return true
            }
            if didApply {
                logger.info("applied migration", metadata: ["herald.migration": "\(migration.name)"])
                applied.append(migration.name)
            }
        }
        return applied
    }
}
