import HeraldCore
import SQLKit

/// `DeviceRegistryStore` on the same SQL backends and tables as `SQLRegistrationStore` (a device is one
/// `devices` row for both).
public struct SQLDeviceRegistry: DeviceRegistryStore {
    let backend: any SQLBackend
    /// Launches kept per device, newest first; older ones are deleted as new ones come in.
    let launchHistoryLimit: Int

    /// Which apps' admin deactivations write a webhook event (in the same transaction).
    let events: EventOutbox

    /// Concurrent launch calls are written together (see `LaunchBatch`).
    let launches: Batcher<LaunchBatch.Call, LaunchRecord>

    public init(backend: any SQLBackend, launchHistoryLimit: Int = 100, events: EventOutbox = .none) {
        self.backend = backend
        let limit = max(1, launchHistoryLimit)
        self.launchHistoryLimit = limit
        self.events = events
        // SQLite has one writer: one batch at a time. PostgreSQL commits several at once on its pool.
        let leaders = backend.dialect.kind == .postgres ? 8 : 1
        self.launches = Batcher(maxBatch: 256, maxLeaders: leaders) { calls in
            await Self.recordLaunches(calls, historyLimit: limit, backend: backend)
        }
    }

    public func recordLaunch(app: String, deviceId: DeviceID, metadata: DeviceMetadata, now: Timestamp) async throws -> LaunchRecord {
        try await launches.submit(LaunchBatch.Call(app: app, deviceId: deviceId, metadata: metadata, now: now))
    }

    /// Writes a batch in one transaction; if that fails, each call alone, so one failure stays its own.
    static func recordLaunches(_ calls: [LaunchBatch.Call], historyLimit: Int, backend: any SQLBackend) async -> [Result<
        LaunchRecord, any Error
    >] {
        do {
            let records = try await backend.write { db in try await LaunchBatch(calls: calls, historyLimit: historyLimit).write(db) }
            return records.map { .success($0) }
        } catch {
            if calls.count == 1 { return [.failure(error)] }
            var results: [Result<LaunchRecord, any Error>] = []
            for call in calls { results.append(contentsOf: await recordLaunches([call], historyLimit: historyLimit, backend: backend)) }
            return results
        }
    }
}
