import HeraldCore
import HeraldTestSupport
import Logging
import SQLKit
import Synchronization
import Testing

@testable import HeraldStore

/// Migration 0009 adds devices.app_version_key and computes it for the versions devices already had.
@Suite struct MigrationBackfillTests {
    @Test(arguments: StoreBackendKind.allCases)
    func appVersionKeysAreBackfilled(_ kind: StoreBackendKind) async throws {
        let logger = Logger(label: "herald.tests")
        try await kind.withEmptyBackend { backend in
            let before = Array(Schema.migrations.prefix { $0.name < "0009" })
            try await Migrator(backend: backend, migrations: before).migrate(logger: logger)
            // Devices as a Herald before 0009 stored them, with more distinct versions than a backfill page.
            @Sendable func version(_ index: Int) -> String? {
                switch index % 5 {
                case 2: "beta"
                case 3: nil
                case 4: "10.0"
                default: "\(index).\(index % 7)"
                }
            }
            let count = AppVersionKeys.pageSize * 2 + 7
            try await backend.write { db in
                for index in 0..<count {
                    try await db.raw(
                        """
                        INSERT INTO devices (app_id, device_id, registration_id, device_token, os, created_at, last_seen_at, app_version)
                        VALUES ('app', \(bind: "device-\(index)"), \(bind: "r\(index)"), 'aa', 'IOS', 0, 0, \(bind: version(index)))
                        """
                    ).run()
                }
            }
            let events = Mutex<[MigrationProgress.Event]>([])
            let applied = try await Migrator(backend: backend).migrate(
                logger: logger, progress: MigrationProgress { event in events.withLock { $0.append(event) } })
            #expect(applied.first == "0009_publish_segments")
            // The progress: each step started then finished; 0009's backfill counted the devices with a version
            // first and reported each page of versions with their devices.
            let reported = events.withLock { $0 }
            let versioned = (0..<count).filter { version($0) != nil }.count
            let backfill = reported.compactMap { event -> MigrationProgress.Rows? in
                guard case .advanced(step: "0009_publish_segments", rows: let rows) = event else { return nil }
                return rows
            }
            #expect(backfill.first == MigrationProgress.Rows(done: 0, total: versioned))
            #expect(backfill.last == MigrationProgress.Rows(done: versioned, total: versioned))
            #expect(backfill.count >= 2 && zip(backfill, backfill.dropFirst()).allSatisfy { $0.done < $1.done })
            #expect(reported.first == .started(step: "0009_publish_segments"))
            let finished = reported.compactMap { event -> (String, MigrationProgress.Rows?)? in
                guard case .finished(let step, let rows, _) = event else { return nil }
                return (step, rows)
            }
            #expect(finished.map(\.0) == applied)
            #expect(finished.first?.1 == MigrationProgress.Rows(done: versioned, total: versioned))
            #expect(
                finished.dropFirst().allSatisfy { $0.0 == "0011_webhook_event_devices" || $0.0 == "0013_message_contents" || $0.1 == nil })
            #expect(finished.first { $0.0 == "0013_message_contents" }?.1 == MigrationProgress.Rows(done: 0, total: 0))
            #expect(
                reported.filter { if case .started = $0 { true } else { false } }.count == applied.count,
                "one start per migration applied")
            let rows = try await backend.read { db in
                try await db.raw("SELECT device_id, app_version, app_version_key FROM devices ORDER BY id").all()
            }
            #expect(rows.count == count)
            for row in rows {
                let version = try row.decode(column: "app_version", as: String?.self)
                let key = try row.decode(column: "app_version_key", as: String?.self)
                let device = try row.decode(column: "device_id", as: String.self)
                #expect(key == version.flatMap { AppVersion($0)?.key }, "device \(device)")
            }
            let keyed = rows.filter { (try? $0.decode(column: "app_version_key", as: String?.self)) != nil }
            #expect(keyed.count == (0..<count).filter { version($0) != nil && version($0) != "beta" }.count)
        }
    }

    @Test(arguments: StoreBackendKind.allCases)
    func webhookEventsGetTheirDevice(_ kind: StoreBackendKind) async throws {
        let logger = Logger(label: "herald.tests")
        try await kind.withEmptyBackend { backend in
            let before = Array(Schema.migrations.prefix { $0.name < "0011" })
            try await Migrator(backend: backend, migrations: before).migrate(logger: logger)
            let payloads = [
                #"{"id":"evt_1","type":"device.tokenRemoved","data":{"deviceId":"phone-1","deviceToken":"aa"}}"#,
                #"{"id":"evt_2","type":"message.finished","data":{"messageId":"message:x"}}"#,
                #"{"id":"evt_3","type":"device.deactivated","data":{"deviceId":"phone-2","deviceToken":null}}"#,
            ]
            try await backend.write { db in
                for (index, payload) in payloads.enumerated() {
                    try await db.raw(
                        """
                        INSERT INTO webhook_events (event_id, app_id, type, payload, created_at, next_attempt_at)
                        VALUES (\(bind: "evt_\(index + 1)"), 'shop', 'x', \(bind: payload), 0, 0)
                        """
                    ).run()
                }
            }
            try await Migrator(backend: backend).migrate(logger: logger)
            let devices = try await backend.read { db in
                try await db.raw("SELECT device_id FROM webhook_events ORDER BY id").all().map {
                    try $0.decode(column: "device_id", as: String?.self)
                }
            }
            #expect(devices == ["phone-1", nil, "phone-2"])
        }
    }

    /// 0013 and 0014: a message stored with the APNs columns reads back with the same APNs content, now
    /// from `contents`, and the old columns are gone; a message without a push stays without contents.
    @Test(arguments: StoreBackendKind.allCases)
    func storedMessagesKeepTheirAPNsContent(_ kind: StoreBackendKind) async throws {
        let logger = Logger(label: "herald.tests")
        try await kind.withEmptyBackend { backend in
            let before = Array(Schema.migrations.prefix { $0.name < "0013" })
            try await Migrator(backend: backend, migrations: before).migrate(logger: logger)
            try await backend.write { db in
                try await db.raw(
                    """
                    INSERT INTO messages (id, app_id, channel, policy, broadcast, payload, push_type, priority, apns_expiration,
                        collapse_id, status, created_at, updated_at)
                    VALUES ('message:a', 'shop', 'news', 'PUSH', 7, '{"aps":{"alert":"hi there"}}', 'alert', 10, 42, 'c',
                        'published', 0, 0)
                    """
                ).run()
                try await db.raw(
                    """
                    INSERT INTO messages (id, app_id, channel, policy, broadcast, status, created_at, updated_at)
                    VALUES ('message:b', 'shop', 'news', 'PUBSUB', 7, 'published', 0, 0)
                    """
                ).run()
            }
            try await Migrator(backend: backend).migrate(logger: logger)
            let store = SQLMessageStore(backend: backend)
            let moved = try #require(try await store.message(app: "shop", id: "message:a"))
            #expect(
                moved.contents?.apns
                    == APNsContent(
                        payload: Array(#"{"aps":{"alert":"hi there"}}"#.utf8), pushType: "alert", priority: 10, expiration: 42,
                        collapseId: "c"))
            let plain = try #require(try await store.message(app: "shop", id: "message:b"))
            #expect(plain.contents == nil)
            await #expect(throws: (any Error).self) {
                try await backend.read { db in try await db.raw("SELECT payload FROM messages").all() }
            }
        }
    }

    /// Migration 0017 moves the per-platform columns of 0015 into `message_counts`: the ANDROID part to
    /// FCM, the rest to APNs, for messages and for the slices of a running occurrence.
    @Test(arguments: StoreBackendKind.allCases)
    func platformCountsBecomeProviderCounts(_ kind: StoreBackendKind) async throws {
        let logger = Logger(label: "herald.tests")
        try await kind.withEmptyBackend { backend in
            let before = Array(Schema.migrations.prefix { $0.name < "0017" })
            try await Migrator(backend: backend, migrations: before).migrate(logger: logger)
            try await backend.write { db in
                for (id, status) in [("message:mixed", "running"), ("message:apple", "published"), ("message:none", "published")] {
                    try await db.raw(
                        """
                        INSERT INTO messages (id, app_id, channel, policy, broadcast, status, created_at, updated_at)
                        VALUES (\(bind: id), 'shop', 'news', 'PUSH', 7, \(bind: status), 0, 0)
                        """
                    ).run()
                }
                // Folded counts: 10 sent (4 to Android), 5 failed (2), 2 removed (1), 1 deactivated (0).
                try await db.raw(
                    """
                    UPDATE messages SET sent = 10, failed = 5, tokens_removed = 2, tokens_deactivated = 1,
                        android_sent = 4, android_failed = 2, android_tokens_removed = 1
                    WHERE id = 'message:mixed'
                    """
                ).run()
                try await db.raw("UPDATE messages SET sent = 3 WHERE id = 'message:apple'").run()
                // The running occurrence's slice: 7 sent (all Android), 1 pending.
                try await db.raw(
                    """
                    INSERT INTO message_slices (message_id, slice, after_key, fanout_cursor, sent, pending, android_sent,
                        created_at, updated_at)
                    VALUES ('message:mixed', 0, 0, 0, 7, 1, 7, 0, 0)
                    """
                ).run()
            }
            let applied = try await Migrator(backend: backend).migrate(logger: logger)
            #expect(applied == Schema.migrations.map(\.name).filter { $0 >= "0017" })
            let store = SQLMessageStore(backend: backend)
            let mixed = try #require(try await store.message(app: "shop", id: "message:mixed")).deliveries
            #expect(
                mixed
                    == DeliveryCounts(
                        sent: 17, failed: 5, pending: 1, tokensRemoved: 2, tokensDeactivated: 1,
                        byProvider: [
                            .apns: ProviderCounts(sent: 6, failed: 3, tokensRemoved: 1, tokensDeactivated: 1),
                            .fcm: ProviderCounts(sent: 11, failed: 2, tokensRemoved: 1),
                        ]))
            let apple = try #require(try await store.message(app: "shop", id: "message:apple")).deliveries
            #expect(apple == DeliveryCounts(sent: 3, byProvider: [.apns: ProviderCounts(sent: 3)]))
            let none = try #require(try await store.message(app: "shop", id: "message:none")).deliveries
            #expect(none == DeliveryCounts(), "no row for a provider that sent nothing")
            // The slice's part is folded into the message with the slice.
            try await backend.write { db in
                try await db.raw("DELETE FROM message_slices WHERE message_id = 'message:mixed'").run()
                try await store.foldProviderCounts(db, id: "message:mixed")
            }
            let rows = try await backend.read { db in
                try await db.raw("SELECT slice, provider, sent FROM message_counts WHERE message_id = 'message:mixed' ORDER BY provider")
                    .all()
            }
            #expect(try rows.map { try $0.decode(column: "slice", as: Int.self) } == [-1, -1])
            #expect(try rows.map { try $0.decode(column: "sent", as: Int64.self) } == [6, 11])
            await #expect(throws: (any Error).self) {
                try await backend.read { db in try await db.raw("SELECT android_sent FROM messages").all() }
            }
        }
    }

    /// Migration 0023 files the history under device keys: a device's rows under its row's key, and a removed
    /// device's under a retired key of its own, so both still list by device id afterwards.
    @Test(arguments: StoreBackendKind.allCases)
    func historyIsFiledUnderDeviceKeys(_ kind: StoreBackendKind) async throws {
        let logger = Logger(label: "herald.tests")
        try await kind.withEmptyBackend { backend in
            let before = Array(Schema.migrations.prefix { $0.name < "0023" })
            try await Migrator(backend: backend, migrations: before).migrate(logger: logger)
            try await backend.write { db in
                try await db.raw(
                    """
                    INSERT INTO devices (app_id, device_id, registration_id, device_token, os, created_at, last_seen_at)
                    VALUES ('shop', 'here', 'r', 'aa', 'IOS', 0, 0), ('blog', 'gone', 'r', 'bb', 'IOS', 0, 0)
                    """
                ).run()
                // shop's "here" has a row; shop's "gone" and blog's "lost" had theirs removed; blog's "gone" has one
                // but no history, so shop's "gone" must not take its key.
                for (app, device, at) in [
                    ("shop", "here", 1), ("shop", "gone", 2), ("shop", "here", 3), ("blog", "lost", 4), ("shop", "gone", 5),
                ] {
                    try await db.raw(
                        """
                        INSERT INTO deliveries (app_id, device_id, message_id, delivered_at, outcome)
                        VALUES (\(bind: app), \(bind: device), \(bind: "message:\(at)"), \(bind: Int64(at)), 'sent')
                        """
                    ).run()
                }
            }
            let applied = try await Migrator(backend: backend).migrate(logger: logger)
            #expect(applied.first == "0023_history_by_device_key")
            let registry = SQLDeviceRegistry(backend: backend)
            func listed(_ app: String, _ device: String) async throws -> [String]? {
                try await registry.deliveries(app: app, deviceId: device, before: nil, limit: 10)?.map(\.messageId)
            }
            #expect(try await listed("shop", "here") == ["message:3", "message:1"])
            #expect(try await listed("shop", "gone") == ["message:5", "message:2"])
            #expect(try await listed("blog", "lost") == ["message:4"])
            #expect(try await listed("blog", "gone") == [])
            #expect(try await listed("shop", "nobody") == nil)
            let keys = try await backend.read { db in
                try await db.raw("SELECT device_key FROM deliveries WHERE device_key IS NULL OR device_key < 0 ORDER BY id").all().map {
                    try $0.decode(column: "device_key", as: Int64?.self)
                }
            }
            #expect(keys.count == 3 && !keys.contains(nil) && Set(keys).count == 2, "removed devices get keys below every row's")
        }
    }
}
