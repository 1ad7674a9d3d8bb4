import HeraldCore
import SQLKit

extension SQLRegistrationStore {
    public func expiredRegistrationKeys(now: Timestamp, limit: Int, app: String?) async throws -> [Int64] {
        try await backend.read { db in
            // Streamed row by row: a million keys are 8 MB, a million decoded rows would be far more.
            let keys = KeyCollector()
            // Through the expiry index, oldest expiry first: the ORDER BY is what keeps the planner on that
            // index. Without it PostgreSQL chose a sequential scan that stops at `limit` finds, which reads
            // the rows of every registration that does not expire, and the dead rows of earlier batches again
            // each batch. One app's: keeping those whose channel is the app's, each channel looked up by key
            // (`keyLookup`): a plain join let PostgreSQL without statistics hash-join every expired
            // registration with the app's channels and sort them all, for each batch.
            let query: SQLQueryString =
                if let app {
                    """
                    SELECT r.id FROM registrations r
                    \(StoreDialect(db).keyLookup("channels", as: "c", columns: ["app_id"], on: "c.id = r.channel_id"))
                    WHERE r.expires_at IS NOT NULL AND r.expires_at <= \(bind: now.milliseconds) AND c.app_id = \(bind: app)
                    ORDER BY r.expires_at LIMIT \(bind: limit)
                    """
                } else {
                    """
                    SELECT id FROM registrations
                    WHERE expires_at IS NOT NULL AND expires_at <= \(bind: now.milliseconds)
                    ORDER BY expires_at LIMIT \(bind: limit)
                    """
                }
            try await db.raw(query).run { row in
                if let key = try? row.decode(column: "id", as: Int64.self) { keys.append(key) }
            }
            return keys.take()
        }
    }

    public func deleteExpired(_ keys: [Int64], now: Timestamp) async throws -> Int {
        guard !keys.isEmpty else { return 0 }
        return try await backend.write { db in
            var removed = 0
            var touched = Set<Int64>()
            for chunk in keys.chunks(ofCount: RegistrationBatch.maxBinds) {
                let rows = try await db.raw(
                    """
                    DELETE FROM registrations
                    WHERE id IN (\(binds: Array(chunk))) AND expires_at <= \(bind: now.milliseconds)
                    RETURNING device_id
                    """
                ).all()
                removed += rows.count
                for row in rows { touched.insert(try row.decode(column: "device_id", as: Int64.self)) }
            }
            try await Self.deleteOrphans(db, among: touched)
            return removed
        }
    }
}

extension SQLRegistrationStore {
    public func exclusiveSweep<T: Sendable>(wait: Bool, _ body: @escaping @Sendable () async throws -> T) async throws -> T? {
        try await backend.withLock(.sweeper, wait: wait, body)
    }

    public func takeSweepTurn(intervalMilliseconds: Int64, now: Timestamp) async throws -> Bool {
        try await backend.write { db in
            let now = backend.leaseClock.now(now, StoreDialect(db))
            try await db.raw(
                """
                INSERT INTO herald_turns (name, last_run_at) VALUES ('sweeper', 0) ON CONFLICT (name) DO NOTHING
                """
            ).run()
            return try await db.raw(
                """
                UPDATE herald_turns SET last_run_at = \(now)
                WHERE name = 'sweeper' AND last_run_at <= \(now) - \(bind: intervalMilliseconds)
                RETURNING name
                """
            ).first() != nil
        }
    }

    /// Deletes those of `devices` that have no registration left, keeping the keys of those with history
    /// (`RetiredDeviceKeys`). The rows are locked first (PostgreSQL), so the NOT EXISTS runs on a snapshot
    /// that includes any register of the same device that committed meanwhile (see `StoreDialect.lockDevices`).
    static func deleteOrphans(_ db: any SQLDatabase, among devices: Set<Int64>) async throws {
        let dialect = StoreDialect(db)
        for chunk in devices.sorted().chunks(ofCount: RegistrationBatch.maxBinds) {
            let ids = Array(chunk)
            if let lock = dialect.lockDevices(ids) { try await db.raw(lock).run() }
            let orphans: SQLQueryString = """
                id IN (\(binds: ids)) AND NOT EXISTS (SELECT 1 FROM registrations r WHERE r.device_id = devices.id)
                """
            try await RetiredDeviceKeys.deleteDevices(db, where: orphans)
        }
    }
}

/// Collects keys from a streaming query's row callback.
final class KeyCollector: Sendable {
    private let keys = Locked<[Int64]>([])

    func append(_ key: Int64) { keys.withLock { $0.append(key) } }

    func take() -> [Int64] { keys.withLock { $0 } }
}
