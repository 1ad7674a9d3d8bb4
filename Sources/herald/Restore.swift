import ArgumentParser
import Foundation
import Herald
import HeraldStore

/// `herald restore FILE`: puts a backup in place of the SQLite database, which no server may be using.
struct Restore: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Replace the SQLite database with a backup made by herald backup (the server must be stopped), and exit.",
        discussion: """
            FILE is checked first (SQLite's integrity check, a schema this Herald knows); then the database \
            is replaced atomically. A backup with an older schema is upgraded by the next herald serve or \
            herald migrate.
            """)

    @OptionGroup var common: CommonOptions

    @Argument(help: "The backup to restore.")
    var file: String

    func run() async throws {
        try await reportingFailures {
            let configuration = try common.load()
            let target = try BackupCommands.sqlitePath(configuration.database, command: "restore")
            let outcome: SQLiteRestore.Outcome
            do throws(BackupFailure) {
                outcome = try SQLiteRestore(backup: file, target: target).run()
            } catch {
                throw StartupError(error.description)
            }
            print(
                "restored \(file) (\(BackupCommands.size(outcome.bytes)), schema \(outcome.schema.latest)) to "
                    + "\(configuration.database) in \(String(format: "%.1f", outcome.seconds)) s")
            if !outcome.schema.pending.isEmpty {
                let count = outcome.schema.pending.count
                print(
                    "its schema is older than this Herald's (\(SchemaVersion.current)): the next herald serve or "
                        + "herald migrate applies the \(count) missing migration\(count == 1 ? "" : "s")")
            }
        }
    }
}
