import Herald
import HeraldStore

/// Opens the configured database (migrating it), runs `body`, and closes it whatever happens.
/// The one-shot commands (`migrate`, `sweep`, `keys`) share this so none of them leaves a handle open.
func withDatabase<T>(_ configuration: HeraldConfiguration, _ body: (any SQLBackend) async throws -> T) async throws -> T {
    let backend = try await HeraldRuntime.openMigrated(configuration.database, logger: makeLogger())
    do {
        let value = try await body(backend)
        try await backend.close()
        return value
    } catch {
        try? await backend.close()
        throw error
    }
}
