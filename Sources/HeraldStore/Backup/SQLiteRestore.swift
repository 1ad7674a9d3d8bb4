import Foundation

/// Puts a backup in place of a SQLite database that no process has open.
///
/// The backup is checked before anything else is touched: SQLite's integrity check, and a schema this
/// build knows (an older one is fine: the next migrate upgrades it; a newer one is refused, as
/// `herald serve` would refuse it). Then the target is checked to be unused, the backup is copied beside
/// it and synced, the target's `-wal` and `-shm` files are removed (a stale WAL would otherwise be
/// replayed onto the restored file) and the copy is renamed over the target.
public struct SQLiteRestore: Sendable {
    public let backup: String
    public let target: String

    /// What was restored.
    public struct Outcome: Sendable {
        public let bytes: Int64
        public let schema: SchemaVersion
        public let seconds: Double
    }

    public init(backup: String, target: String) {
        self.backup = backup
        self.target = target
    }

    public func run() throws(BackupFailure) -> Outcome {
        let started = ContinuousClock.now
        let schema = try Self.inspect(backup)
        guard DurableFile.exists(DurableFile.directory(of: target)) else {
            throw BackupFailure("cannot restore to \(target): directory \(DurableFile.directory(of: target)) does not exist")
        }
        try Self.ensureUnused(target)
        let partial = DurableFile.partial(for: target)
        DurableFile.removeWithCompanions(partial)
        var renamed = false
        defer { if !renamed { DurableFile.removeWithCompanions(partial) } }
        try DurableFile.copy(backup, to: partial, permissions: DurableFile.permissions(of: target))
        guard DurableFile.size(of: partial) == DurableFile.size(of: backup) else {
            throw BackupFailure("the copy of \(backup) beside \(target) is incomplete (is the disk full?)")
        }
        for stale in ["-wal", "-shm"] where DurableFile.exists(target + stale) {
            guard unlink(target + stale) == 0 else {
                throw BackupFailure("cannot remove \(target + stale): \(String(cString: strerror(errno)))")
            }
        }
        try DurableFile.replace(target, with: partial)
        renamed = true
        let elapsed = ContinuousClock.now - started
        return Outcome(
            bytes: DurableFile.size(of: target), schema: schema,
            seconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
    }

    /// Checks a backup without writing anything beside it (opened immutable: no lock, no WAL, no
    /// shared-memory file): it passes SQLite's integrity check and its schema is not newer than this build.
    public static func inspect(_ path: String) throws(BackupFailure) -> SchemaVersion {
        guard DurableFile.exists(path) else { throw BackupFailure("backup \(path) does not exist") }
        // A WAL beside the file holds commits the file alone lacks: a live database, not a backup.
        if DurableFile.size(of: path + "-wal") > 0 {
            throw BackupFailure(
                "\(path) has a write-ahead log beside it (\(path)-wal): it is a live database, not a backup; make one with herald backup")
        }
        let handle: SQLiteHandle
        do {
            handle = try SQLiteHandle(path: path, mode: .immutable)
        } catch {
            throw BackupFailure("backup \(path) cannot be opened: \(error)")
        }
        defer { handle.close() }
        try SQLiteIntegrity.check(handle, what: "backup \(path)")
        let schema = try SchemaVersion(reading: handle)
        guard schema.unknown.isEmpty else {
            throw BackupFailure(
                "backup \(path) has a schema newer than this Herald (migration\(schema.unknown.count == 1 ? "" : "s") "
                    + "\(schema.unknown.joined(separator: ", ")), which this binary does not know); restore it with the Herald that made it"
            )
        }
        return schema
    }

    /// Refuses a target that any process has open. Every connection to a WAL database (each of a
    /// running server's) holds a shared lock on the file for as long as it is open, so an exclusive
    /// lock is granted only when none is: a running `herald serve`, `herald sweep` or sqlite3 shell.
    static func ensureUnused(_ target: String) throws(BackupFailure) {
        guard DurableFile.exists(target) else { return }
        do throws(SQLiteHandle.Failure) {
            let handle = try SQLiteHandle(path: target, mode: .readWrite)
            defer { handle.close() }
            handle.busyTimeout(milliseconds: 1000)
            try handle.execute("PRAGMA locking_mode = EXCLUSIVE")
            try handle.execute("BEGIN EXCLUSIVE")
            try handle.execute("COMMIT")
        } catch  where error.isBusy {
            throw BackupFailure(
                "database \(target) is in use by another process (a running herald serve?); stop it before restoring")
        } catch {
            // Not a readable database (a damaged file being replaced): nothing can be serving it.
        }
    }
}
