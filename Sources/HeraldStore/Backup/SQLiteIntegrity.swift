/// `PRAGMA integrity_check`: SQLite reads every page, index and constraint and answers "ok" or the problems.
enum SQLiteIntegrity {
    static func check(_ handle: SQLiteHandle, what: String) throws(BackupFailure) {
        let answer: [String]
        do {
            answer = try handle.strings("PRAGMA integrity_check(5)")
        } catch {
            throw BackupFailure("\(what) is not a readable SQLite database: \(error)")
        }
        guard answer == ["ok"] else {
            throw BackupFailure("\(what) fails SQLite's integrity check: \(answer.prefix(3).joined(separator: "; "))")
        }
    }
}
