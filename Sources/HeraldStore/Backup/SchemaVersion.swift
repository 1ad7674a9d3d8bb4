/// Where a database's schema stands against this build's migrations, from its `herald_migrations` rows.
public struct SchemaVersion: Sendable, Equatable {
    /// The last migration applied: the schema's version, as `herald backup` and `herald restore` print it.
    public let latest: String
    /// Applied migrations this build does not know: a newer Herald migrated the database.
    public let unknown: [String]
    /// This build's migrations the database has not applied: the next `herald serve` or `herald migrate` applies them.
    public let pending: [String]

    /// This build's last migration: the version of a database it has migrated.
    public static var current: String { Schema.migrations.last?.name ?? "" }

    init(applied: [String]) {
        let known = Schema.migrations.map(\.name)
        let knownSet = Set(known)
        let appliedSet = Set(applied)
        // Names sort in the order migrations apply (a four-digit prefix).
        latest = applied.max() ?? "none"
        unknown = applied.filter { !knownSet.contains($0) }.sorted()
        pending = known.filter { !appliedSet.contains($0) }
    }

    /// Reads the applied migrations; a file without the table is not a Herald database.
    init(reading handle: SQLiteHandle) throws(BackupFailure) {
        let tables: [String]
        let applied: [String]
        do {
            tables = try handle.strings("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'herald_migrations'")
            applied = tables.isEmpty ? [] : try handle.strings("SELECT name FROM herald_migrations")
        } catch {
            throw BackupFailure("\(handle.path) cannot be read as a SQLite database: \(error)")
        }
        guard !tables.isEmpty else {
            throw BackupFailure("\(handle.path) is not a Herald database (it has no herald_migrations table)")
        }
        self.init(applied: applied)
    }
}
