import Foundation
import Herald
import HeraldStore

/// Opens the configured database (migrating it), runs `body`, and closes it whatever happens.
///
/// `mustExist`: the one-shot commands that read what a server wrote (`keys`, `sweep`) refuse a SQLite
/// file that is not there, rather than create an empty one and report on it (a mistyped path would
/// otherwise "sweep 0" the wrong file). PostgreSQL never creates a database, so it refuses by itself.
func withDatabase<T>(
    _ configuration: HeraldConfiguration, mustExist: Bool = false, progress: MigrationProgress = .silent,
    _ body: (any SQLBackend) async throws -> T
) async throws -> T {
    if mustExist, case .sqliteFile(let path) = configuration.database, !FileManager.default.fileExists(atPath: path) {
        throw StartupError("database \(configuration.database) does not exist (`herald serve` or `herald migrate` creates it)")
    }
    return try await HeraldRuntime.withMigrated(
        configuration.database, logger: makeLogger(configuration), progress: progress, body)
}
