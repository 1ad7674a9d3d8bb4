import Logging

/// Opens the backend a database URL names and brings its schema up to date.
public enum StoreFactory {
    public static func openBackend(_ url: DatabaseURL, logger: Logger) async throws -> any SQLBackend {
        switch url {
        case .sqliteFile, .sqliteMemory:
            try await SQLiteBackend.open(url, logger: logger)
        }
    }
}
