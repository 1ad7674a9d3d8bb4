import Foundation
// The SQLite that SQLiteNIO compiles in (its symbols prefixed `sqlite_nio_`), not a second copy: two
// SQLite libraries in one process that open the same file lose each other's POSIX locks. SQLiteNIO
// does not expose the online backup API, so backups and restores call it here directly.
import VaporCSQLite

/// One `sqlite3` connection used synchronously, for the one-shot file operations (backup, restore) that
/// need calls SQLiteNIO does not offer. Closed in `deinit`; not shared between threads.
final class SQLiteHandle {
    let raw: OpaquePointer
    let path: String
    private var closed = false

    /// A call SQLite refused: its result code and message.
    struct Failure: Error, CustomStringConvertible {
        let code: Int32
        let message: String
        var description: String { message }
        /// A result code with SQLite's text for it (the backup API's errors are not the connection's message).
        init(code: Int32) {
            self.init(code: code, message: String(cString: sqlite_nio_sqlite3_errstr(code)))
        }

        init(code: Int32, message: String) {
            self.code = code
            self.message = message
        }

        /// Another connection holds the lock this call needed.
        var isBusy: Bool { code & 0xff == SQLITE_BUSY || code & 0xff == SQLITE_LOCKED }
    }

    /// How a file is opened.
    enum Mode {
        /// Read and write an existing file.
        case readWrite
        /// Read and write, creating the file.
        case create
        /// Read only, with no locking and no WAL or shared-memory file: a file nothing else writes (a backup).
        case immutable
    }

    init(path: String, mode: Mode) throws(Failure) {
        var handle: OpaquePointer?
        let flags: Int32
        let name: String
        switch mode {
        case .readWrite:
            flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX
            name = path
        case .create:
            flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
            name = path
        case .immutable:
            flags = SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX
            let escaped = path.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? path
            name = "file:\(escaped)?immutable=1"
        }
        let code = sqlite_nio_sqlite3_open_v2(name, &handle, flags | SQLITE_OPEN_EXRESCODE, nil)
        guard let handle else { throw Failure(code: code, message: "out of memory opening \(path)") }
        guard code == SQLITE_OK else {
            let failure = Failure(code: code, message: String(cString: sqlite_nio_sqlite3_errmsg(handle)))
            sqlite_nio_sqlite3_close_v2(handle)
            throw failure
        }
        self.raw = handle
        self.path = path
    }

    deinit { close() }

    /// Closes the connection now (a file must be closed before it is synced and renamed); once only.
    func close() {
        if closed { return }
        closed = true
        sqlite_nio_sqlite3_close_v2(raw)
    }

    /// The last error on this connection.
    func failure(_ code: Int32) -> Failure {
        Failure(code: code, message: String(cString: sqlite_nio_sqlite3_errmsg(raw)))
    }

    /// Runs statements that return nothing Herald reads.
    func execute(_ sql: String) throws(Failure) {
        let code = sqlite_nio_sqlite3_exec(raw, sql, nil, nil, nil)
        guard code == SQLITE_OK else { throw failure(code) }
    }

    /// The first column of every row, as text (NULL as "").
    func strings(_ sql: String) throws(Failure) -> [String] {
        var statement: OpaquePointer?
        let prepared = sqlite_nio_sqlite3_prepare_v2(raw, sql, -1, &statement, nil)
        guard prepared == SQLITE_OK, let statement else { throw failure(prepared) }
        defer { sqlite_nio_sqlite3_finalize(statement) }
        var rows: [String] = []
        while true {
            let code = sqlite_nio_sqlite3_step(statement)
            if code == SQLITE_DONE { return rows }
            guard code == SQLITE_ROW else { throw failure(code) }
            rows.append(sqlite_nio_sqlite3_column_text(statement, 0).map { String(cString: $0) } ?? "")
        }
    }

    /// Waits up to `milliseconds` for another connection's lock before a call fails busy.
    func busyTimeout(milliseconds: Int32) {
        sqlite_nio_sqlite3_busy_timeout(raw, milliseconds)
    }
}
