import Foundation
import VaporCSQLite

/// A consistent copy of a SQLite database that a server may be writing to, through SQLite's online
/// backup API.
///
/// The copy is one snapshot: a read transaction is held on the source for the whole copy, so every page
/// comes from the same commit. In WAL mode a reader never blocks a writer, so the server's writes go on;
/// what the snapshot costs is that the WAL cannot be checkpointed past it and grows by what is written
/// meanwhile, and is folded back by the server's next checkpoint. Without the held transaction the
/// backup API would restart from the first page after every commit of another connection, and never
/// finish under a steady stream of registrations. Pages are copied `pagesPerStep` at a time with a
/// `pause` between steps, so the copy's reads and writes come in short bursts that leave the disk to the
/// server's commits in between. The copy is written back to disk every `syncEvery` bytes as it grows
/// (`CopyWriteback`), so that neither the copy nor its final fsync floods the disk's queue that the
/// server's WAL fsyncs wait in.
///
/// The copy is written beside `destination` and renamed over it only once complete, synced and checked
/// (`PRAGMA integrity_check`), so a failed backup leaves `destination` as it was.
public struct SQLiteBackup: Sendable {
    public let source: String
    public let destination: String
    /// 512 pages of 4 KiB: 2 MiB a step, a few milliseconds of I/O.
    public var pagesPerStep: Int32 = 512
    public var pause: Duration = .milliseconds(2)
    /// Bytes of the copy written between two writebacks to disk; 0: none, the whole copy is synced at
    /// the end by SQLite's commit and a backup it replaces is freed inside the rename, as `herald
    /// backup` did before (BENCHMARKS.md section 41 compares the two).
    public var syncEvery: Int = 4 << 20
    /// How much lower than the copy's the integrity check's CPU priority is (a nice increment, 0–19).
    /// The check is a few seconds of one core; on a small machine the server's threads come first.
    public var checkNice: Int32 = 10

    /// Pages copied so far of the pages to copy.
    public struct Progress: Sendable {
        public let done: Int
        public let total: Int
        public var percent: Int { total == 0 ? 100 : done * 100 / total }
    }

    /// What was written.
    public struct Outcome: Sendable {
        public let path: String
        public let bytes: Int64
        public let pages: Int
        public let schema: SchemaVersion
        public let seconds: Double
        /// How long each phase took: the copy, the integrity check, the final sync and rename.
        public let phases: Phases
        /// How many times the copy was written back to disk as it grew (0 with `syncEvery` 0).
        public let writebacks: Int
    }

    /// Seconds spent in each phase of a backup.
    public struct Phases: Sendable {
        public let copy: Double
        public let check: Double
        public let sync: Double
    }

    public init(source: String, destination: String) {
        self.source = source
        self.destination = destination
    }

    /// Copies, checks and renames into place; `progress` is called after every step.
    public func run(progress: (Progress) -> Void) throws(BackupFailure) -> Outcome {
        let started = ContinuousClock.now
        try checkPaths()
        let partial = DurableFile.partial(for: destination)
        DurableFile.removeWithCompanions(partial)
        var renamed = false
        defer { if !renamed { DurableFile.removeWithCompanions(partial) } }
        let (pages, writebacks) = try copy(to: partial, progress: progress)
        let copied = ContinuousClock.now
        Self.lowerPriority(by: checkNice)
        let schema = try check(partial)
        let checked = ContinuousClock.now
        try DurableFile.sync(partial)
        try DurableFile.replace(destination, with: partial, releasingGradually: syncEvery > 0)
        renamed = true
        let ended = ContinuousClock.now
        return Outcome(
            path: destination, bytes: DurableFile.size(of: destination), pages: pages, schema: schema,
            seconds: Self.seconds(ended - started),
            phases: Phases(
                copy: Self.seconds(copied - started), check: Self.seconds(checked - copied), sync: Self.seconds(ended - checked)),
            writebacks: writebacks)
    }

    /// Raises the calling thread's nice value by `increment` (on Linux the value is a thread's, and the
    /// backup runs on one thread); it stays raised: what follows the check is short.
    private static func lowerPriority(by increment: Int32) {
        guard increment > 0 else { return }
        #if os(Linux)
        let which = __priority_which_t(PRIO_PROCESS.rawValue)
        #else
        let which = PRIO_PROCESS
        #endif
        errno = 0
        let current = getpriority(which, 0)
        guard errno == 0 else { return }
        _ = setpriority(which, 0, min(19, current + increment))
    }

    private static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    private func checkPaths() throws(BackupFailure) {
        guard DurableFile.exists(source) else {
            throw BackupFailure("database \(source) does not exist (`herald serve` or `herald migrate` creates it)")
        }
        let resolved = { (path: String) in URL(fileURLWithPath: path).resolvingSymlinksInPath().standardizedFileURL.path }
        guard resolved(source) != resolved(destination) else {
            throw BackupFailure("\(destination) is the database itself; write the backup to another file")
        }
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: destination, isDirectory: &isDirectory), isDirectory.boolValue {
            throw BackupFailure("\(destination) is a directory; name the backup file, e.g. \(destination)/herald.sqlite")
        }
        let directory = DurableFile.directory(of: destination)
        guard FileManager.default.isWritableFile(atPath: directory) else {
            throw BackupFailure("cannot write the backup in \(directory): the directory does not exist or is not writable")
        }
    }

    /// The online backup, step by step inside one read transaction on the source; returns the pages
    /// copied and the writebacks made.
    private func copy(to partial: String, progress: (Progress) -> Void) throws(BackupFailure) -> (Int, Int) {
        do {
            let from = try SQLiteHandle(path: source, mode: .readWrite)
            // A server's writer or `herald sweep` may hold the write lock for a moment; the read below waits for it.
            from.busyTimeout(milliseconds: 5000)
            try from.execute("BEGIN")
            // The snapshot starts with the first read; every step reads from it.
            _ = try from.strings("SELECT count(*) FROM sqlite_master")
            let to = try SQLiteHandle(path: partial, mode: .create)
            var writeback: CopyWriteback?
            if syncEvery > 0 {
                // The copy is synced here as it goes and once more before the rename; SQLite's own
                // journal and syncs would only add a sync of the whole file at its commit. A crash
                // leaves a half-written partial file, never a half-written FILE.
                try to.execute("PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF")
                writeback = try CopyWriteback(path: partial, chunk: syncEvery)
            }
            guard let backup = sqlite_nio_sqlite3_backup_init(to.raw, "main", from.raw, "main") else {
                throw to.failure(sqlite_nio_sqlite3_extended_errcode(to.raw))
            }
            var finished = false
            defer { if !finished { sqlite_nio_sqlite3_backup_finish(backup) } }
            var code: Int32
            var total = 0
            repeat {
                code = sqlite_nio_sqlite3_backup_step(backup, pagesPerStep)
                total = Int(sqlite_nio_sqlite3_backup_pagecount(backup))
                progress(Progress(done: total - Int(sqlite_nio_sqlite3_backup_remaining(backup)), total: total))
                try writeback?.advance()
                if code == SQLITE_OK || code == SQLITE_BUSY || code == SQLITE_LOCKED {
                    let (seconds, attoseconds) = pause.components
                    usleep(UInt32(seconds * 1_000_000 + attoseconds / 1_000_000_000_000))
                }
            } while code == SQLITE_OK || code == SQLITE_BUSY || code == SQLITE_LOCKED
            finished = true
            let finish = sqlite_nio_sqlite3_backup_finish(backup)
            guard code == SQLITE_DONE else { throw SQLiteHandle.Failure(code: code) }
            guard finish == SQLITE_OK else { throw SQLiteHandle.Failure(code: finish) }
            try from.execute("COMMIT")
            from.close()
            to.close()
            try writeback?.finish()
            return (total, writeback?.writebacks ?? 0)
        } catch {
            throw BackupFailure("backup of \(source) failed: \(error)")
        }
    }

    /// The finished copy passes `PRAGMA integrity_check`; returns its schema version.
    private func check(_ partial: String) throws(BackupFailure) -> SchemaVersion {
        let handle: SQLiteHandle
        do {
            handle = try SQLiteHandle(path: partial, mode: .readWrite)
        } catch {
            throw BackupFailure("the copy \(partial) cannot be opened: \(error)")
        }
        defer { handle.close() }
        try SQLiteIntegrity.check(handle, what: "the copy of \(source)")
        return try SchemaVersion(reading: handle)
    }
}
