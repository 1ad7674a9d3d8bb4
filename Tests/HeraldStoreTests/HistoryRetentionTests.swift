import HeraldCore
import SQLKit
import Testing

@testable import HeraldStore

/// The sweeper's pruning of the delivery history, on every backend: by age and by a per-device cap,
/// in small transactions.
@Suite struct HistoryRetentionTests {
    let t0 = Fixture.t0

    /// One history entry (sent) as a checkpoint files it; `key` nil as a Herald from before migration 0023 wrote it.
    static func insertEntry(
        _ db: any SQLDatabase, app: String, key: Int64?, device: String, message: String = "message:x", at: Int64
    ) async throws {
        try await db.raw(
            """
            INSERT INTO deliveries (app_id, device_key, device_id, message_id, delivered_at, outcome)
            VALUES (\(bind: app), \(bind: key), \(bind: device), \(bind: message), \(bind: at), 'sent')
            """
        ).run()
    }

    /// `count` retired keys, ids 1...count in order with keys −1...−count and device ids d1...; `app` is the SQL
    /// for each one's app, of its number `i`.
    static func insertRetiredKeys(_ db: any SQLDatabase, count: Int, app: SQLQueryString = "'shop'") async throws {
        try await db.raw(
            """
            \(unsafeRaw: KeysetPlanTests.series(count))
            INSERT INTO retired_device_keys (app_id, device_id, device_key)
            SELECT \(app), 'd' || CAST(i AS TEXT), -i FROM series
            """
        ).run()
    }

    /// The retired keys left, of `app` or of every app.
    static func retiredKeysLeft(_ backend: any SQLBackend, app: String? = nil) async throws -> Int {
        let ofApp: SQLQueryString = app.map { " WHERE app_id = \(bind: $0)" } ?? ""
        return try await backend.read { db in
            try #require(try await db.raw("SELECT COUNT(*) AS n FROM retired_device_keys\(ofApp)").first()).decode(
                column: "n", as: Int.self)
        }
    }

    @Test(arguments: StoreBackendKind.allCases)
    func historyPastItsAgeOrItsCapIsPrunedInBatches(_ kind: StoreBackendKind) async throws {
        try await kind.withStore { _, backend in
            // Device a: 10 recent rows; device b: 3 rows older than the cutoff and 1 recent; another app's a: 2 recent.
            var rows: [(String, String, Int64)] = (0..<10).map { ("shop", "a", 1_000 + $0) }
            rows += [
                ("shop", "b", 1), ("shop", "b", 2), ("shop", "b", 3), ("shop", "b", 1_000), ("blog", "a", 1_000), ("blog", "a", 1_001),
            ]
            // More devices over the cap than a batch holds, so the count pass pages by key: 6, 5 and 6 recent rows.
            rows += (0..<6).map { ("shop", "c", 1_000 + $0) } + (0..<5).map { ("blog", "b", 1_000 + $0) }
            rows += (0..<6).map { ("blog", "z", 1_000 + $0) }
            let inserts = rows
            try await backend.write { db in
                for (app, device, offset) in inserts {
                    // Each device id its own key (a device row's, as a checkpoint files history).
                    let key = Int64(device.unicodeScalars.first!.value)
                    try await Self.insertEntry(db, app: app, key: key, device: device, at: t0.milliseconds + offset)
                }
            }
            let registry = SQLDeviceRegistry(backend: backend)
            let pruned = try await registry.pruneHistory(before: t0.adding(milliseconds: 500), keepPerDevice: 4, batchSize: 2)
            #expect(pruned == 3 + 6 + 2 + 1 + 2)
            func kept(_ app: String, _ device: String) async throws -> [Int64] {
                try await backend.read { db in
                    try await db.raw(
                        """
                        SELECT delivered_at FROM deliveries WHERE app_id = \(bind: app) AND device_id = \(bind: device) ORDER BY delivered_at
                        """
                    ).all().map { try $0.decode(column: "delivered_at", as: Int64.self) - t0.milliseconds }
                }
            }
            #expect(try await kept("shop", "a") == [1_006, 1_007, 1_008, 1_009], "the newest 4")
            #expect(try await kept("shop", "b") == [1_000])
            #expect(try await kept("blog", "a") == [1_000, 1_001])
            #expect(try await kept("shop", "c") == [1_002, 1_003, 1_004, 1_005])
            #expect(try await kept("blog", "b") == [1_001, 1_002, 1_003, 1_004])
            #expect(try await kept("blog", "z") == [1_002, 1_003, 1_004, 1_005])
            #expect(try await registry.pruneHistory(before: t0.adding(milliseconds: 500), keepPerDevice: 4, batchSize: 2) == 0)
        }
    }

    @Test(arguments: StoreBackendKind.allCases)
    func anAppScopedPruneLeavesOtherAppsAlone(_ kind: StoreBackendKind) async throws {
        try await kind.withStore { _, backend in
            // Both apps: 2 rows past the cutoff and 6 recent rows on one device.
            let rows: [(String, Int64)] = ["shop", "blog"].flatMap { app in [(app, 1), (app, 2)] + (0..<6).map { (app, 1_000 + $0) } }
            try await backend.write { db in
                for (app, offset) in rows {
                    try await Self.insertEntry(db, app: app, key: 1, device: "a", at: t0.milliseconds + offset)
                }
            }
            let registry = SQLDeviceRegistry(backend: backend)
            #expect(
                try await registry.pruneHistory(before: t0.adding(milliseconds: 500), keepPerDevice: 4, batchSize: 10, app: "blog") == 4)
            let left = try await backend.read { db in
                try await db.raw("SELECT app_id, COUNT(*) AS n FROM deliveries GROUP BY app_id ORDER BY app_id").all().map {
                    "\(try $0.decode(column: "app_id", as: String.self))=\(try $0.decode(column: "n", as: Int.self))"
                }
            }
            #expect(left == ["blog=4", "shop=8"])
        }
    }

    /// Two devices filed under one key (SQLite gives a deleted row's key to the next device): the cap counts
    /// the key's rows together, the oldest first, so the new device never loses its own to the old one's.
    @Test(arguments: StoreBackendKind.allCases)
    func theCapOfAReusedKeyTakesTheOlderDevicesRowsFirst(_ kind: StoreBackendKind) async throws {
        try await kind.withStore { _, backend in
            // "old" (removed, its key retired) has 3 rows under key 7; "new" then got key 7 and has 3 newer ones.
            try await backend.write { db in
                for (device, offset) in [("old", 1), ("old", 2), ("old", 3), ("new", 4), ("new", 5), ("new", 6)] {
                    try await Self.insertEntry(db, app: "shop", key: 7, device: device, at: t0.milliseconds + Int64(offset))
                }
            }
            let registry = SQLDeviceRegistry(backend: backend)
            #expect(try await registry.pruneHistory(before: t0, keepPerDevice: 4, batchSize: 10) == 2)
            let kept = try await backend.read { db in
                try await db.raw("SELECT device_id, delivered_at FROM deliveries ORDER BY delivered_at").all().map {
                    "\(try $0.decode(column: "device_id", as: String.self))@\(try $0.decode(column: "delivered_at", as: Int64.self) - t0.milliseconds)"
                }
            }
            #expect(kept == ["old@3", "new@4", "new@5", "new@6"], "the key's newest 4")
        }
    }

    /// Rows without a key (written by a Herald from before migration 0023 while the upgrade rolls out) do not
    /// stop the sweep: the cap passes them by and the age takes them.
    @Test(arguments: StoreBackendKind.allCases)
    func rowsWithoutAKeyGoByAgeOnly(_ kind: StoreBackendKind) async throws {
        try await kind.withStore { _, backend in
            try await backend.write { db in
                for offset in [1, 2, 3, 1_000, 1_001, 1_002] {
                    try await Self.insertEntry(db, app: "shop", key: nil, device: "old-binary", at: t0.milliseconds + Int64(offset))
                }
            }
            let registry = SQLDeviceRegistry(backend: backend)
            #expect(try await registry.pruneHistory(before: t0.adding(milliseconds: 500), keepPerDevice: 1, batchSize: 2) == 3)
            let left = try await backend.read { db in
                try #require(try await db.raw("SELECT COUNT(*) AS n FROM deliveries").first()).decode(column: "n", as: Int.self)
            }
            #expect(left == 3, "the recent ones stay: no key, no cap")
        }
    }

    /// An erasure keeps the device's keys retired, so an entry a fan-out writes after it (it read the device
    /// before) is listed and a second erasure takes it; the sweep forgets the keys once nothing is under them.
    @Test(arguments: StoreBackendKind.allCases)
    func anEntryWrittenAfterAnErasureIsFoundAndErased(_ kind: StoreBackendKind) async throws {
        try await kind.withStore { store, backend in
            let request = try RegistrationRequest(
                json: try JSONValue.parse(Array(#"{"deviceToken": "aa01", "deviceId": "d1", "os": "IOS", "channels": ["news"]}"#.utf8)),
                now: t0)
            _ = try await store.register(app: "shop", request, now: t0)
            let key = try await backend.read { db in
                try #require(try await db.raw("SELECT id FROM devices WHERE device_id = 'd1'").first()).decode(column: "id", as: Int64.self)
            }
            @Sendable func deliver(_ message: String) async throws {
                try await backend.write { db in
                    try await Self.insertEntry(db, app: "shop", key: key, device: "d1", message: message, at: t0.milliseconds)
                }
            }
            try await deliver("message:before")
            let registry = SQLDeviceRegistry(backend: backend)
            #expect(try await registry.erase(app: "shop", deviceId: "d1"))
            #expect(try await registry.deliveries(app: "shop", deviceId: "d1", before: nil, limit: 10) == nil)
            try await deliver("message:late")
            #expect(
                try await registry.deliveries(app: "shop", deviceId: "d1", before: nil, limit: 10)?.map(\.messageId) == ["message:late"])
            #expect(try await registry.erase(app: "shop", deviceId: "d1"), "the late entry is erased too")
            #expect(try await registry.deliveries(app: "shop", deviceId: "d1", before: nil, limit: 10) == nil)
            _ = try await registry.pruneHistory(before: t0, keepPerDevice: 100, batchSize: 2)
            let retired = try await backend.read { db in
                try await db.raw("SELECT COUNT(*) AS n FROM retired_device_keys").first()?.decode(column: "n", as: Int.self)
            }
            #expect(retired == 0)
            #expect(try await registry.erase(app: "shop", deviceId: "d1") == false)
        }
    }

    /// The sweep's pass over the retired keys reads a bounded number a sweep and goes on where it stopped.
    @Test(arguments: StoreBackendKind.allCases)
    func retiredKeysWithNothingUnderThemAreForgottenOverSweeps(_ kind: StoreBackendKind) async throws {
        try await kind.withStore { _, backend in
            let count = SQLDeviceRegistry.retiredKeysPerSweep + 500
            try await backend.write { db in
                try await Self.insertRetiredKeys(db, count: count)
                // One key still has history under it.
                try await Self.insertEntry(db, app: "shop", key: -3, device: "d3", at: t0.milliseconds)
            }
            func left() async throws -> Int { try await Self.retiredKeysLeft(backend) }
            let registry = SQLDeviceRegistry(backend: backend)
            _ = try await registry.pruneHistory(before: t0, keepPerDevice: 100, batchSize: 250)
            #expect(try await left() == 500 + 1, "one sweep's worth forgotten, the one with history kept")
            _ = try await registry.pruneHistory(before: t0, keepPerDevice: 100, batchSize: 250)
            #expect(try await left() == 1)
        }
    }

    /// One app's sweep forgets that app's empty retired keys only, though it walks every app's (by id, from
    /// where that app's last sweep stopped), and its cursor is its own: every app's sweep starts from the first.
    @Test(arguments: StoreBackendKind.allCases)
    func oneAppsSweepForgetsOnlyThatAppsRetiredKeys(_ kind: StoreBackendKind) async throws {
        try await kind.withStore { _, backend in
            // Two apps' keys interleaved by id (odd ids the blog's), none with history: more than two sweeps look at.
            let perSweep = SQLDeviceRegistry.retiredKeysPerSweep
            let count = 2 * perSweep + 2_000
            try await backend.write { db in
                try await Self.insertRetiredKeys(db, count: count, app: "CASE WHEN i % 2 = 0 THEN 'shop' ELSE 'blog' END")
            }
            func left(_ app: String) async throws -> Int { try await Self.retiredKeysLeft(backend, app: app) }
            let registry = SQLDeviceRegistry(backend: backend)
            let half = count / 2
            // ids 1...20,000: the shop's 10,000 among them go.
            _ = try await registry.pruneHistory(before: t0, keepPerDevice: 100, batchSize: 250, app: "shop")
            #expect(try await left("blog") == half, "the other app's keys all stay")
            #expect(try await left("shop") == half - perSweep / 2, "the app's keys among the ids one sweep reads go")
            // ids 20,001...40,000 (started again from the first, it would read the blog's 10,000 there, and 10,000 more).
            _ = try await registry.pruneHistory(before: t0, keepPerDevice: 100, batchSize: 250, app: "shop")
            #expect(try await left("blog") == half)
            #expect(try await left("shop") == half - perSweep, "the app's next sweep goes on where its last stopped")
            // Every app's first sweep: the first 20,000 rows left, all the blog's (odd ids up to 39,999).
            _ = try await registry.pruneHistory(before: t0, keepPerDevice: 100, batchSize: 250)
            #expect(try await left("blog") == half - perSweep, "every app's sweep has a cursor of its own")
            #expect(try await left("shop") == half - perSweep)
        }
    }
}
