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

    /// `metrics` gets each registration batch's size and write time. `writeQueueLimit`: registrations
    /// that may wait for their transaction; more are refused with `WriteQueueFull`. Unbounded by default
    /// (tools and tests that seed a database wait their turn); the server passes `database.writeQueueLimit`.
    public init(backend: any SQLBackend, metrics: HeraldMetrics = .disabled, writeQueueLimit: Int = .max) {
        self.backend = backend
        self.registrations = Batcher.writing(on: backend, maxWaiting: writeQueueLimit, metrics: metrics, as: .registrations) { calls, db in
            try await RegistrationBatch(calls: calls).write(db)
        }
    }

    public func register(app: String, _ request: RegistrationRequest, now: Timestamp) async throws -> RegistrationReceipt {
        try await registrations.submit(RegistrationBatch.Call(app: app, request: request, now: now))
    }
}

/// How many writes of one kind may wait for the database at once in the server (`database.writeQueueLimit`).
public enum WriteQueueLimit {
    /// About 0.7 s of waiting at the slowest rate measured (PostgreSQL sharing 2 cores, 3,000
    /// registrations/s over HTTP; BENCHMARKS.md), and twice the default connection cap.
    public static let `default` = 2048
}

/// A state the store's own writes should make impossible; reported as an internal error.
struct StoreInvariantViolation: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
