import HeraldCore
import HeraldMetrics
import SQLKit

/// The one `RegistrationStore`, written against SQLKit so SQLite and PostgreSQL share every query.
/// Values reach SQL only as bind parameters.
public struct SQLRegistrationStore: RegistrationStore {
    /// The database it works on (tests and the benchmarks read rows through it directly).
    public let backend: any SQLBackend
    /// Concurrent register calls are written together (see `RegistrationBatch`).
    let registrations: Batcher<RegistrationBatch.Call, RegistrationReceipt>

    /// `metrics` gets each registration batch's size and write time.
    public init(backend: any SQLBackend, metrics: HeraldMetrics = .disabled) {
        self.backend = backend
        self.registrations = Batcher.writing(on: backend, metrics: metrics, as: .registrations) { calls, db in
            try await RegistrationBatch(calls: calls).write(db)
        }
    }

    public func register(app: String, _ request: RegistrationRequest, now: Timestamp) async throws -> RegistrationReceipt {
        try await registrations.submit(RegistrationBatch.Call(app: app, request: request, now: now))
    }
}

/// A state the store's own writes should make impossible; reported as an internal error.
struct StoreInvariantViolation: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
