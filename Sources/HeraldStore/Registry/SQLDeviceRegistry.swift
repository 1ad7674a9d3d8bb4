import HeraldCore
import HeraldMetrics
import SQLKit

/// `DeviceRegistryStore` on the same SQL backends and tables as `SQLRegistrationStore` (a device is one
/// `devices` row for both).
public struct SQLDeviceRegistry: DeviceRegistryStore {
    let backend: any SQLBackend

    /// Which apps' admin deactivations write a webhook event (in the same transaction).
    let events: EventOutbox

    /// Where the sweeper's passes over the retired keys stopped (`forgetRetiredKeys`): every app's under nil,
    /// one app's under its id. Shared by copies; one entry for each app swept on its own at most.
    let retiredKeyCursors = Locked<[String?: Int64]>([:])

    /// Concurrent launch calls are written together (see `LaunchBatch`).
    let launches: Batcher<LaunchBatch.Call, LaunchRecord>

    /// `launchHistoryLimit`: launches kept per device, newest first; older ones are deleted as new ones come in.
    /// `metrics` gets each launch batch's size and write time; `writeQueueLimit` bounds the launches waiting
    /// for their transaction, as for registrations.
    public init(
        backend: any SQLBackend, launchHistoryLimit: Int = 100, events: EventOutbox = .none, metrics: HeraldMetrics = .disabled,
        writeQueueLimit: Int = .max
    ) {
        self.backend = backend
        self.events = events
        let limit = max(1, launchHistoryLimit)
        self.launches = Batcher.writing(on: backend, maxWaiting: writeQueueLimit, metrics: metrics, as: .launches) { calls, db in
            try await LaunchBatch(calls: calls, historyLimit: limit).write(db)
        }
    }

    public func recordLaunch(app: String, deviceId: DeviceID, metadata: DeviceMetadata, now: Timestamp) async throws -> LaunchRecord {
        try await launches.submit(LaunchBatch.Call(app: app, deviceId: deviceId, metadata: metadata, now: now))
    }
}
