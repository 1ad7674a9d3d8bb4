import ArgumentParser
import Foundation
import Herald
import HeraldStore
import HeraldTerminal

/// `herald backup FILE`: a consistent copy of the SQLite database, made while a server may be writing to it.
struct Backup: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Copy the SQLite database to FILE while it is in use (a consistent, checked copy), and exit.",
        discussion: """
            The copy is written beside FILE and renamed over it once complete and checked, so a failed \
            backup leaves FILE as it was. PostgreSQL has its own tools: pg_dump, pg_basebackup.
            """)

    @OptionGroup var common: CommonOptions

    @Argument(help: "The file to write (replaced if it exists).")
    var file: String

    /// Tests make the copy take many steps on a small database, so writes land between them.
    @Option(name: .long, help: .hidden)
    var pagesPerStep: Int32 = 512

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Write the copy back to disk every MB megabytes as it grows, so the server's commits never wait behind a "
                + "flood of the backup's writes; 0: sync the whole copy once at the end.",
            valueName: "MB"))
    var syncEvery: Int = 4

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Milliseconds to pause after each step of 512 pages (2 MiB); longer: a slower copy, more of the disk left to the server.",
            valueName: "MS"))
    var pace: Int = 2

    /// The bench compares the check at the copy's priority (0) with the default.
    @Option(name: .long, help: .hidden)
    var checkNice: Int32 = 10

    func validate() throws {
        guard (0...1024).contains(syncEvery) else { throw ValidationError("--sync-every is megabytes from 0 (off) to 1024") }
        guard (0...1000).contains(pace) else { throw ValidationError("--pace is milliseconds from 0 to 1000") }
        guard (0...19).contains(checkNice) else { throw ValidationError("--check-nice is a nice increment from 0 to 19") }
    }

    func run() async throws {
        try await reportingFailures {
            let configuration = try common.load()
            let source = try BackupCommands.sqlitePath(configuration.database, command: "backup")
            let progress = BackupProgress(output: .standardOutput())
            let outcome: SQLiteBackup.Outcome
            do throws(BackupFailure) {
                var backup = SQLiteBackup(source: source, destination: file)
                backup.pagesPerStep = max(1, pagesPerStep)
                backup.syncEvery = syncEvery << 20
                backup.pause = .milliseconds(pace)
                backup.checkNice = checkNice
                outcome = try backup.run(progress: progress.show)
            } catch {
                progress.abandon()
                throw StartupError(error.description)
            }
            progress.finish()
            print(
                "wrote \(outcome.path): \(BackupCommands.size(outcome.bytes)), schema \(outcome.schema.latest), "
                    + "in \(String(format: "%.1f", outcome.seconds)) s (copy \(String(format: "%.1f", outcome.phases.copy)) s, "
                    + "check \(String(format: "%.1f", outcome.phases.check)) s, sync \(String(format: "%.2f", outcome.phases.sync)) s)")
        }
    }
}

/// What `herald backup` and `herald restore` share: the SQLite path, PostgreSQL's refusal, sizes.
enum BackupCommands {
    static func sqlitePath(_ database: DatabaseURL, command: String) throws -> String {
        switch database {
        case .sqliteFile(let path):
            return path
        case .sqliteMemory:
            throw StartupError("herald \(command) works on a SQLite file; \(database) is in memory")
        case .postgres:
            throw StartupError(
                "herald \(command) is for SQLite; database \(database) is PostgreSQL: use pg_dump for a logical copy, "
                    + "or pg_basebackup with WAL archiving for point-in-time recovery (docs/operations.md, Backups and restore)")
        }
    }

    static func size(_ bytes: Int64) -> String {
        bytes < 1_000_000 ? "\(bytes) bytes" : String(format: "%.1f MB", Double(bytes) / 1_000_000)
    }
}

/// The copy's progress on standard output: the pages copied, rewritten in place on a terminal; elsewhere (a log,
/// a pipe) one line at the end, so a log is not filled with percentages.
final class BackupProgress {
    let output: TerminalProgress
    private var done = 0
    private var total = 0

    init(output: TerminalProgress) { self.output = output }

    func show(_ progress: SQLiteBackup.Progress) {
        (done, total) = (progress.done, progress.total)
        output.update("copying: \(done) of \(total) pages (\(progress.percent)%)")
    }

    func finish() {
        output.finish("copied \(done) of \(total) pages (100%)")
    }

    /// Ends a rewritten line before the failure is printed.
    func abandon() { output.abandon() }
}
