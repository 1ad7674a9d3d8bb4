import HeraldCore
import SQLKit

/// The one `RegistrationStore`, written against SQLKit so SQLite and PostgreSQL share every query.
/// Values reach SQL only as bind parameters.
public struct SQLRegistrationStore: RegistrationStore {
    /// The database it works on (tests and the benchmarks read rows through it directly).
    public let backend: any SQLBackend
    /// Concurrent register calls are written together (see `RegistrationBatch`).
    let registrations: Batcher<RegistrationBatch.Call, RegistrationReceipt>

    public init(backend: any SQLBackend) {
        self.backend = backend
        // SQLite has one writer: one batch at a time. PostgreSQL commits several at once on its pool.
        let leaders = backend.dialect.kind == .postgres ? 8 : 1
        self.registrations = Batcher(maxBatch: 256, maxLeaders: leaders) { calls in await Self.register(calls, backend: backend) }
    }

    public func register(app: String, _ request: RegistrationRequest, now: Timestamp) async throws -> RegistrationReceipt {
        try await registrations.submit(RegistrationBatch.Call(app: app, request: request, now: now))
    }

    /// Writes a batch in one transaction; if that fails, each call alone, so one failure stays its own.
    static func register(_ calls: [RegistrationBatch.Call], backend: any SQLBackend) async -> [Result<RegistrationReceipt, any Error>] {
        do {
            let receipts = try await backend.write { db in try await RegistrationBatch(calls: calls).write(db) }
            return receipts.map { .success($0) }
        } catch {
            if calls.count == 1 { return [.failure(error)] }
            var results: [Result<RegistrationReceipt, any Error>] = []
            for call in calls { results.append(contentsOf: await register([call], backend: backend)) }
            return results
        }
    }
}

/// A state the store's own writes should make impossible; reported as an internal error.
struct StoreInvariantViolation: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
