import HeraldCore
import HeraldStore
import SQLKit
import Testing

/// The sweeper's pruning of the delivery history, on every backend: by age and by a per-device cap,
/// in small transactions.
@Suite struct HistoryRetentionTests {
    let t0 = Fixture.t0

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
                    try await db.raw(
                        """
                        INSERT INTO deliveries (app_id, device_key, device_id, message_id, delivered_at, outcome)
                        VALUES (\(bind: app), \(bind: key), \(bind: device), 'message:x', \(bind: t0.milliseconds + offset), 'sent')
                        """
                    ).run()
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
                    try await db.raw(
                        """
                        INSERT INTO deliveries (app_id, device_key, device_id, message_id, delivered_at, outcome)
                        VALUES (\(bind: app), 1, 'a', 'message:x', \(bind: t0.milliseconds + offset), 'sent')
                        """
                    ).run()
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
}
