import Foundation
import Logging
import NIOCore
import NIOPosix
import SQLKit
import SQLiteKit
import Synchronization

/// The embedded backend: one SQLite file in WAL mode.
///
/// Writes go through one connection with group commit (`synchronous=FULL`: a committed write survives
/// `kill -9` and power loss). Reads use their own connections, so they see only committed data and never
/// wait for a commit. An in-memory database has a single connection, so there reads queue with writes.
public final class SQLiteBackend: SQLBackend {
    private let writer: SQLiteConnection
    private let committer: GroupCommitter
    private let readers: [SQLiteConnection]
    private let nextReader = Atomic<Int>(0)
    private let logger: Logger
    /// Copies the WAL back into the database file in the background (files only); see `checkpoints`.
    private let checkpointer: (connection: SQLiteConnection, task: Task<Void, Never>)?

    /// How often the background checkpoint runs.
    static let checkpointInterval = Duration.milliseconds(200)

    private init(writer: SQLiteConnection, readers: [SQLiteConnection], checkpointer: SQLiteConnection?, logger: Logger) {
        self.writer = writer
        self.readers = readers
        self.logger = logger
        self.committer = GroupCommitter(database: writer.sql(), beginStatement: "BEGIN IMMEDIATE")
        self.checkpointer = checkpointer.map { connection in
            (connection, Task { await Self.checkpoints(connection, logger: logger) })
        }
    }

    /// Runs a PASSIVE checkpoint every `checkpointInterval` on a connection of its own. Without it the
    /// writer checkpoints itself when the WAL passes `wal_autocheckpoint` pages, inside a commit, and
    /// every write queued behind that commit waits for 40 MB to be copied and fsynced (about 100 ms
    /// here, measured while pruning history). A PASSIVE checkpoint on another connection runs beside the
    /// writer without blocking it, so the writer's own checkpoint is left as a backstop that rarely fires.
    private static func checkpoints(_ connection: SQLiteConnection, logger: Logger) async {
        var reported = false
        while !Task.isCancelled {
            try? await Task.sleep(for: checkpointInterval)
            if Task.isCancelled { return }
            do {
                _ = try await connection.sql().raw("PRAGMA wal_checkpoint(PASSIVE)").all()
            } catch {
                // The writer's own checkpoints still run; say so once rather than every interval.
                if !reported { logger.warning("background WAL checkpoint failed", metadata: ["herald.error": "\(error)"]) }
                reported = true
            }
        }
    }

    /// Opens (creating if needed) the database. `readConnections` applies to files only.
    public static func open(_ url: DatabaseURL, readConnections: Int = 2, logger: Logger) async throws -> SQLiteBackend {
        switch url {
        case .sqliteMemory:
            let connection = try await SQLiteConnection.open(storage: .memory, logger: logger)
            try await configure(connection, file: false)
            return SQLiteBackend(writer: connection, readers: [], checkpointer: nil, logger: logger)
        case .sqliteFile(let path):
            try checkWritable(path)
            // Every connection opened is closed again if a later step fails (a full disk fails the
            // first PRAGMA that writes), so a failed open leaves nothing behind.
            var opened: [SQLiteConnection] = []
            do {
                let writer = try await SQLiteConnection.open(storage: .file(path: path), logger: logger)
                opened.append(writer)
                try await configure(writer, file: true)
                var readers: [SQLiteConnection] = []
                for _ in 0..<max(1, readConnections) {
                    let reader = try await SQLiteConnection.open(storage: .file(path: path), logger: logger)
                    opened.append(reader)
                    try await configureReader(reader)
                    readers.append(reader)
                }
                let checkpointer = try await SQLiteConnection.open(storage: .file(path: path), logger: logger)
                opened.append(checkpointer)
                return SQLiteBackend(writer: writer, readers: readers, checkpointer: checkpointer, logger: logger)
            } catch {
                for connection in opened { try? await connection.close() }
                let reason = (translate(error) as? StoreUnavailable)?.reason ?? "\(error)"
                throw StoreOpenFailure(description: "database file '\(path)' cannot be opened: \(reason)")
            }
        case .postgres:
            throw StoreOpenFailure(description: "database \(url) is not a SQLite database")
        }
    }

    /// Names the problem before SQLite does, because SQLite's own message ("unable to open database file") does not.
    static func checkWritable(_ path: String) throws {
        let url = URL(fileURLWithPath: path)
        let directory = url.deletingLastPathComponent().path
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw StoreOpenFailure(description: "database path '\(path)' is not writable: directory '\(directory)' does not exist")
        }
        if FileManager.default.fileExists(atPath: path) {
            guard FileManager.default.isWritableFile(atPath: path) else {
                throw StoreOpenFailure(description: "database path '\(path)' is not writable: the file is read-only")
            }
        }
        guard FileManager.default.isWritableFile(atPath: directory) else {
            throw StoreOpenFailure(description: "database path '\(path)' is not writable: cannot create files in '\(directory)'")
        }
    }

    private static func configure(_ connection: SQLiteConnection, file: Bool) async throws {
        let sql = connection.sql()
        if file {
            try await sql.raw("PRAGMA journal_mode = WAL").run()
            // FULL: the WAL is fsynced at every commit, so an answered write survives power loss, not only kill -9.
            try await sql.raw("PRAGMA synchronous = FULL").run()
            // Checkpoint every ~40 MB of WAL rather than every 4 MB: a large sweep rewrites the same pages
            // many times, and each checkpoint copies them back; the WAL is truncated to 64 MB afterwards.
            try await sql.raw("PRAGMA wal_autocheckpoint = 10000").run()
            try await sql.raw("PRAGMA journal_size_limit = 67108864").run()
        }
        try await sql.raw("PRAGMA foreign_keys = ON").run()
        // Another process (`herald sweep`) may hold the write lock for one batch; wait instead of failing.
        try await sql.raw("PRAGMA busy_timeout = 5000").run()
        try await sql.raw("PRAGMA temp_store = MEMORY").run()
    }

    private static func configureReader(_ connection: SQLiteConnection) async throws {
        let sql = connection.sql()
        try await sql.raw("PRAGMA busy_timeout = 5000").run()
        try await sql.raw("PRAGMA query_only = ON").run()
    }

    /// Makes every read connection reload the schema now. SQLite notices a schema change only when a
    /// statement steps, after SQLiteNIO has read the prepared statement's column names: the first query
    /// of a reader that cached the old schema would otherwise match `SELECT *` columns to the wrong names
    /// (a dropped column shifts the rest).
    public func schemaChanged() async throws {
        for reader in readers {
            _ = try await reader.sql().raw("SELECT count(*) AS n FROM sqlite_master").all()
        }
    }

    public func read<T: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        if readers.isEmpty { return try await committer.run(body) }
        let index = nextReader.wrappingAdd(1, ordering: .relaxed).oldValue
        return try await body(SQLiteSession(readers[index % readers.count]))
    }

    public func write<T: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        do {
            return try await committer.run(body)
        } catch {
            throw Self.translate(error)
        }
    }

    /// SQLite bounds no write: the same as `write`.
    public func unboundedWrite<T: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        try await write(body)
    }

    /// A write refused because the disk is full, or the file system turned read-only or failed, is the
    /// database being unavailable (503, and the write is rolled back whole), not a bad request: it
    /// succeeds again once the operator frees space, with no restart.
    static func translate(_ error: any Error) -> any Error {
        guard let error = error as? SQLiteError else { return error }
        switch error.reason {
        case .full:
            return StoreUnavailable(reason: "the disk holding the SQLite database is full")
        case .ioError, .ioErrorFailedWrite, .ioErrorFailedSync, .ioErrorFailedDirSync, .ioErrorFailedTruncate,
            .ioErrorFailedStat, .ioErrorFailedDelete, .ioErrorFailedAccess, .ioErrorFailedClose, .ioErrorFailedSharedMemOpen,
            .ioErrorFailedSharedMemSize, .ioErrorFailedSharedMemMap, .ioErrorFailedMemoryMap, .ioErrorCorruptedFilesystem:
            return StoreUnavailable(reason: "the SQLite database's file system failed a write (\(error.message))")
        case .readOnly, .readonlyInRecovery, .readonlyCantLock, .readonlyInRollback, .readonlyBackingMoved, .readonlyDirectory:
            return StoreUnavailable(reason: "the SQLite database is read-only (\(error.message))")
        default:
            return error
        }
    }

    public var dialect: StoreDialect { .sqlite }

    /// One server uses a SQLite file, and a second process (`herald sweep`) waits on the file's write
    /// lock batch by batch, so there is nothing to exclude: `body` runs at once.
    public func withLock<T: Sendable>(_ lock: StoreLock, wait: Bool, _ body: @escaping @Sendable () async throws -> T) async throws -> T? {
        try await body()
    }

    public func close() async throws {
        if let checkpointer {
            checkpointer.task.cancel()
            await checkpointer.task.value
            try await checkpointer.connection.close()
        }
        for reader in readers { try await reader.close() }
        try await writer.close()
    }
}
