import HeraldCore
import SQLKit

extension SQLDeviceRegistry {
    /// Rows of history deleted per transaction at most, whatever `sweeper.batchSize` says: a history row
    /// sits in three B-trees, and 1,000 of them took up to 90 ms to delete and commit here (measured with
    /// `herald-bench prune`), against the 100 ms a write may wait behind the sweeper.
    public static let historyPruneBatch = 250

    public func pruneHistory(before cutoff: Timestamp, keepPerDevice: Int, batchSize requested: Int, app: String?) async throws -> Int {
        let batchSize = max(1, min(requested, Self.historyPruneBatch))
        var pruned = 0
        let ofApp: SQLQueryString = app.map { "AND app_id = \(bind: $0)" } ?? ""
        // By age, oldest first, a batch per transaction (through the delivered_at index), each batch from
        // where the last one ended (for one app, the other apps' older rows stay and are not read again).
        var from = Int64.min
        while true {
            let deleted = try await backend.write { [from] db in
                try await db.raw(
                    """
                    DELETE FROM deliveries WHERE id IN (
                        SELECT id FROM deliveries WHERE delivered_at >= \(bind: from) AND delivered_at < \(bind: cutoff.milliseconds) \(ofApp)
                        ORDER BY delivered_at LIMIT \(literal: batchSize))
                    RETURNING delivered_at
                    """
                ).all().map { try $0.decode(column: "delivered_at", as: Int64.self) }
            }
            pruned += deleted.count
            if deleted.count < batchSize { break }
            from = deleted.max() ?? from
        }
        // By count: the keys over the cap, paged through deliveries_by_device_key (one pass over the index in
        // all, however many pages), then each one's rows older than its newest `keepPerDevice`, `batchSize`
        // rows per transaction (usually one: a device's excess is what came since the last sweep). The cap
        // is per device row: a device removed and registered again under a new key starts a new count, and
        // its earlier rows go by age. A key SQLite gave a second device (after deleting the first, when it
        // was the highest) files both devices' rows, and the cap counts them together: the older device's,
        // the oldest, go first. One app's pages are a range of the key pair alone, from (app, minimum) up to
        // the app's last key: an equality on app_id let PostgreSQL without statistics read all of the app's
        // rows through a bitmap and hash them, for each page. Rows without a key (written by a Herald from
        // before migration 0023 during an upgrade) go by age only.
        var afterApp = app ?? ""
        var afterKey = Int64.min
        let upToApp: SQLQueryString = app.map { "AND app_id <= \(bind: $0)" } ?? ""
        while true {
            let over = try await backend.read { [afterApp, afterKey] db in
                try await db.raw(
                    """
                    SELECT app_id, device_key FROM deliveries
                    WHERE (app_id, device_key) > (\(bind: afterApp), \(bind: afterKey)) AND device_key IS NOT NULL \(upToApp)
                    GROUP BY app_id, device_key HAVING COUNT(*) > \(literal: keepPerDevice)
                    ORDER BY app_id, device_key LIMIT \(literal: batchSize)
                    """
                ).all().map { (try $0.decode(column: "app_id", as: String.self), try $0.decode(column: "device_key", as: Int64.self)) }
            }
            if let last = over.last { (afterApp, afterKey) = last }
            for (app, key) in over {
                pruned += try await capKey(app: app, key: key, keep: keepPerDevice, batchSize: batchSize)
            }
            if over.count < batchSize { break }
        }
        try await forgetRetiredKeys(batchSize: batchSize, app: app)
        return pruned
    }

    /// Deletes the rows under `key` older than its newest `keep`, `batchSize` per transaction.
    func capKey(app: String, key: Int64, keep: Int, batchSize: Int) async throws -> Int {
        let rows: SQLQueryString = "app_id = \(bind: app) AND device_key = \(bind: key)"
        guard
            let newestPruned = try await backend.read({ db in
                try await db.raw("SELECT id FROM deliveries WHERE \(rows) ORDER BY id DESC LIMIT 1 OFFSET \(literal: keep)")
                    .first()?.decode(column: "id", as: Int64.self)
            })
        else { return 0 }
        var pruned = 0
        while true {
            let deleted = try await backend.write { db in
                try await db.raw(
                    """
                    DELETE FROM deliveries WHERE id IN (
                        SELECT id FROM deliveries WHERE \(rows) AND id <= \(bind: newestPruned) ORDER BY id LIMIT \(literal: batchSize))
                    RETURNING id
                    """
                ).all().count
            }
            pruned += deleted
            if deleted < batchSize { return pruned }
        }
    }

    /// Retired keys (`RetiredDeviceKeys`) one sweep looks at, at most: each is an index probe, and a large
    /// app retires a key for every device it loses with history, kept for up to `history.days`.
    static let retiredKeysPerSweep = 20_000

    /// Forgets the retired keys with no history left under them: `retiredKeysPerSweep` rows of the table a
    /// sweep at most, read `batchSize` at a time in id (primary key) order from where the last sweep of the same
    /// scope stopped (every app's, or one app's: `retiredKeyCursors`, in this process's memory), with a write only
    /// for a page that has some to forget.
    ///
    /// One app's pass walks the same primary key, every app's rows, and forgets only that app's keys among
    /// them, so a small app's keys in a large table are reached over several of its sweeps (every app's sweeps,
    /// the timer's, reach them too). A walk of the app's keys alone (`app_id = ? AND id > ?` in id order) was
    /// a plan PostgreSQL without statistics of the table made a read of all of the app's keys and a sort, for
    /// every page (KeysetPlanTests).
    func forgetRetiredKeys(batchSize: Int, app: String?) async throws {
        let noHistory: SQLQueryString = """
            NOT EXISTS (SELECT 1 FROM deliveries h WHERE h.app_id = r.app_id AND h.device_key = r.device_key AND h.device_id = r.device_id)
            """
        let forgettable: SQLQueryString = app.map { "r.app_id = \(bind: $0) AND \(noHistory)" } ?? noHistory
        var after = retiredKeyCursors.withLock { $0[app] ?? Int64.min }
        var seen = 0
        while seen < Self.retiredKeysPerSweep {
            let page = try await backend.read { [after] db in
                try await db.raw(
                    """
                    SELECT r.id, CASE WHEN \(forgettable) THEN 1 ELSE 0 END AS forget
                    FROM retired_device_keys r WHERE r.id > \(bind: after) ORDER BY r.id LIMIT \(literal: batchSize)
                    """
                ).all().map { (try $0.decode(column: "id", as: Int64.self), try $0.decode(column: "forget", as: Int.self) == 1) }
            }
            let forget = page.filter(\.1).map(\.0)
            if let first = forget.first, let last = forget.last {
                // Checked again in the write: a checkpoint may have filed history under the key meanwhile. The ids
                // are the app's already; an `app_id` condition here led PostgreSQL without statistics to read all
                // of the app's keys through its unique index. The range beside the list keeps PostgreSQL on the
                // primary key then: for the list alone it read the whole table (KeysetPlanTests).
                try await backend.write { db in
                    try await db.raw(
                        """
                        DELETE FROM retired_device_keys AS r
                        WHERE r.id >= \(bind: first) AND r.id <= \(bind: last) AND r.id IN (\(binds: forget)) AND \(noHistory)
                        """
                    ).run()
                }
            }
            seen += page.count
            guard page.count == batchSize, let last = page.last else {
                after = Int64.min  // the end of the table: the next sweep starts again from the first
                break
            }
            after = last.0
        }
        retiredKeyCursors.withLock { [after] in $0[app] = after }
    }
}
