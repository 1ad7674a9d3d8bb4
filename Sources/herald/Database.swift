import Herald
import HeraldStore

/// Opens the configured database (migrating it), runs `body`, and closes it whatever happens.
func withDatabase<T>(_ configuration: HeraldConfiguration, _ body: (any SQLBackend) async throws -> T) async throws -> T {
    try await HeraldRuntime.withMigrated(configuration.database, logger: makeLogger(), body)
}
