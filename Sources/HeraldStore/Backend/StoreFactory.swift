import HeraldMetrics
import Logging
import ServiceLifecycle

/// Opens the backend a database URL names for the length of a body, and closes it afterwards.
public enum StoreFactory {
    /// Opens the backend, runs `body` with it, and closes it whether `body` throws or not.
    ///
    /// PostgreSQL's connection pool is a service that must run while it is used: it runs in a service
    /// group of its own in a child task, started before `body` and shut down after it, so it opens first
    /// and closes last around everything else Herald runs (the HTTP server, dispatcher and sweeper, or a
    /// one-shot command). A server that cannot be reached is reported before `body` starts.
    public static func withBackend<T>(
        _ url: DatabaseURL, logger: Logger, metrics: HeraldMetrics = .disabled,
        _ body: (any SQLBackend) async throws -> T
    ) async throws -> T {
        switch url {
        case .sqliteFile, .sqliteMemory:
            let backend = try await SQLiteBackend.open(url, logger: logger)
            return try await closing(backend) { try await body(backend) }
        case .postgres(let location):
            let backend = try PostgresBackend(location, logger: logger, metrics: metrics)
            let group = ServiceGroup(configuration: .init(services: [.init(service: backend)], logger: logger))
            return try await withThrowingDiscardingTaskGroup { tasks in
                tasks.addTask { try? await group.run() }
                await backend.waitUntilRunning()
                let result: Result<T, any Error>
                do {
                    try await backend.checkReachable()
                    result = .success(try await body(backend))
                } catch {
                    result = .failure(error)
                }
                await group.triggerGracefulShutdown()
                tasks.cancelAll()
                return try result.get()
            }
        }
    }

    private static func closing<T>(_ backend: any SQLBackend, _ body: () async throws -> T) async throws -> T {
        do {
            let value = try await body()
            try await backend.close()
            return value
        } catch {
            try? await backend.close()
            throw error
        }
    }
}
