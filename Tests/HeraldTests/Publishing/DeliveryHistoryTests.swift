import APNsMock
import Herald
import HeraldCore
import HeraldDispatch
import HeraldStore
import Hummingbird
import HummingbirdTesting
import SQLKit
import Testing

/// Each notification's final outcome lands in its device's delivery history, written with the page
/// checkpoint, and matches what the mock answered device by device.
@Suite struct DeliveryHistoryTests {
    @Test(arguments: PublishHarness.Database.available)
    func theHistoryMatchesWhatAPNsAnsweredEachDevice(_ database: PublishHarness.Database) async throws {
        try await PublishHarness.with(database: database) { h in
            let registeredAt = h.clock.now.milliseconds
            try await h.registerDevices(0..<12)
            h.clock.advance(milliseconds: 5_000)
            h.mock.script(token: PublishHarness.token(3), .unregistered(timestamp: registeredAt + 2_000), times: 1)
            h.mock.script(token: PublishHarness.token(5), .reject(status: 400, reason: "BadDeviceToken"), times: 1)
            h.mock.script(token: PublishHarness.token(7), .reject(status: 400, reason: "PayloadTooLarge"), times: 1)
            let id = try await h.publish("news", #"{"message": "Hi"}"#)
            let status = try await h.waitFor(id, status: "published")
            #expect(status.delivery("sent") == 9 && status.delivery("failed") == 3)

            for index in 0..<12 {
                let answer = try await h.client.call(.get, "/shop/k-server/devices/dev-\(index)/deliveries")
                #expect(answer.status == .ok, "dev-\(index): \(answer.body)")
                guard case .array(let entries)? = answer.body["deliveries"], entries.count == 1, let entry = entries.first else {
                    Issue.record("dev-\(index) has \(answer.body)")
                    continue
                }
                let expected: (String, JSONValue) =
                    switch index {
                    case 3: ("tokenRemoved", .string("Unregistered"))
                    case 5: ("tokenDeactivated", .string("BadDeviceToken"))
                    case 7: ("failed", .string("PayloadTooLarge"))
                    default: ("sent", .null)
                    }
                #expect(entry["outcome"] == .string(expected.0), "dev-\(index)")
                #expect(entry["reason"] == expected.1, "dev-\(index)")
                #expect(entry["messageId"] == .string(id))
                #expect(entry["deliveredAt"] != nil)
            }
            // The removed device is gone, but the record of why stays until it is erased.
            #expect(try await h.registration("dev-3").status == .notFound)
            #expect(try await h.client.call(.delete, "/shop/k-admin/devices/dev-3").status == .ok)
            #expect(try await h.client.call(.get, "/shop/k-server/devices/dev-3/deliveries").body.code == 5000)
            #expect(try await h.client.call(.get, "/shop/k-client/devices/dev-0/deliveries").body.code == 5007, "server role at least")

            // A second message: newest first, paged.
            let second = try await h.publish("news", #"{"message": "Again"}"#)
            _ = try await h.waitFor(second, status: "published")
            let first = try await h.client.call(.get, "/shop/k-admin/devices/dev-0/deliveries?limit=1")
            #expect(first.body["deliveries"]?[0]?["messageId"] == .string(second))
            guard case .string(let cursor)? = first.body["nextCursor"] else {
                Issue.record("no cursor in \(first.body)")
                return
            }
            let older = try await h.client.call(.get, "/shop/k-admin/devices/dev-0/deliveries?limit=1&cursor=\(cursor)")
            #expect(older.body["deliveries"]?[0]?["messageId"] == .string(id))
            #expect(older.body["nextCursor"] == .null)
        }
    }

    /// The history is filed under each device row's key: a device removed and registered again (a new row)
    /// still lists what it had, one page after another across both rows, and a device given a deleted
    /// device's key (SQLite reuses the highest) sees none of the other's.
    @Test(arguments: PublishHarness.Database.available)
    func aDeviceKeepsItsHistoryAcrossItsRowsAndSeesNoOthers(_ database: PublishHarness.Database) async throws {
        try await PublishHarness.with(database: database) { h in
            try await h.registerDevices(0..<2)
            try await h.registerDevices(2..<3)
            func key(_ device: String) async throws -> Int64? {
                try await h.store.backend.read { db in
                    try await db.raw("SELECT id FROM devices WHERE device_id = \(bind: device)").first()?.decode(
                        column: "id", as: Int64.self)
                }
            }
            let removedKey = try await key("dev-2")
            func messages(_ device: String, query: String = "") async throws -> [JSONValue] {
                let answer = try await h.client.call(.get, "/shop/k-server/devices/\(device)/deliveries\(query)")
                #expect(answer.status == .ok, "\(device): \(answer.body)")
                guard case .array(let entries)? = answer.body["deliveries"] else { return [] }
                return entries.map { $0["messageId"] ?? .null }
            }
            let first = try await h.publish("news", #"{"message": "One"}"#)
            _ = try await h.waitFor(first, status: "published")
            #expect(try await h.client.call(.delete, PublishHarness.register + "/dev-2").status == .ok)
            try await h.registerDevices(9..<10)
            if database == .sqlite {
                #expect(try await key("dev-9") == removedKey, "SQLite gives the new device the deleted device's key")
            }
            let second = try await h.publish("news", #"{"message": "Two"}"#)
            _ = try await h.waitFor(second, status: "published")
            #expect(try await messages("dev-9") == [.string(second)], "none of dev-2's under the same key")
            #expect(try await messages("dev-2") == [.string(first)], "a removed device's history stays")

            try await h.registerDevices(2..<3)
            #expect(try await key("dev-2") != removedKey)
            let third = try await h.publish("news", #"{"message": "Three"}"#)
            _ = try await h.waitFor(third, status: "published")
            #expect(try await messages("dev-2") == [.string(third), .string(first)], "both rows' history, newest first")
            let page = try await h.client.call(.get, "/shop/k-server/devices/dev-2/deliveries?limit=1")
            #expect(page.body["deliveries"]?[0]?["messageId"] == .string(third))
            guard case .string(let cursor)? = page.body["nextCursor"] else {
                Issue.record("no cursor in \(page.body)")
                return
            }
            #expect(try await messages("dev-2", query: "?limit=1&cursor=\(cursor)") == [.string(first)])
            #expect(try await messages("dev-9") == [.string(third), .string(second)])

            // Erasing dev-2 takes the history of both its rows and leaves dev-9's.
            #expect(try await h.client.call(.delete, "/shop/k-admin/devices/dev-2").status == .ok)
            #expect(try await h.client.call(.get, "/shop/k-server/devices/dev-2/deliveries").body.code == 5000)
            #expect(try await messages("dev-9") == [.string(third), .string(second)])
            // Its keys stay until a sweep finds nothing under them (a fan-out that read dev-2 before the erasure
            // could still write an entry, which a second erasure would then find).
            #expect(try await Self.retired(h) == ["dev-2", "dev-2"])
            _ = try await h.client.call(.post, "/shop/k-admin/admin/sweep")
            #expect(try await Self.retired(h) == [], "the sweep forgets keys with nothing under them")
        }
    }

    /// A removed device's key is kept while history is filed under it, and forgotten by the sweep that
    /// prunes the last of it.
    @Test(arguments: PublishHarness.Database.available)
    func aRetiredKeyIsForgottenWithItsLastHistory(_ database: PublishHarness.Database) async throws {
        try await PublishHarness.with(database: database) { h in
            try await h.registerDevices(0..<3)
            let id = try await h.publish("news", #"{"message": "Hi"}"#)
            _ = try await h.waitFor(id, status: "published")
            #expect(try await h.client.call(.delete, PublishHarness.register + "/dev-1").status == .ok)
            #expect(try await Self.retired(h) == ["dev-1"])
            #expect(try await h.client.call(.post, "/shop/k-admin/admin/sweep").body["historyPruned"] == .integer(0))
            #expect(try await Self.retired(h) == ["dev-1"], "kept while its history is")
            h.clock.advance(milliseconds: 31 * 86_400_000)
            #expect(try await h.client.call(.post, "/shop/k-admin/admin/sweep").body["historyPruned"] != .integer(0))
            #expect(try await Self.retired(h) == [])
            #expect(try await h.client.call(.get, "/shop/k-server/devices/dev-1/deliveries").body.code == 5000)
        }
    }

    /// The device ids of the retired keys, in order.
    static func retired(_ h: PublishHarness.Harness) async throws -> [String] {
        try await h.store.backend.read { db in
            try await db.raw("SELECT device_id FROM retired_device_keys ORDER BY device_id").all().map {
                try $0.decode(column: "device_id", as: String.self)
            }
        }
    }

    @Test(arguments: PublishHarness.Database.available)
    func theSweepPrunesHistoryPastItsAge(_ database: PublishHarness.Database) async throws {
        try await PublishHarness.with(database: database) { h in
            try await h.registerDevices(0..<3)
            let id = try await h.publish("news", #"{"message": "Hi"}"#)
            _ = try await h.waitFor(id, status: "published")
            let sweep = try await h.client.call(.post, "/shop/k-admin/admin/sweep")
            #expect(sweep.body["historyPruned"] == .integer(0), "a fresh history stays")
            h.clock.advance(milliseconds: 31 * 86_400_000)
            let later = try await h.client.call(.post, "/shop/k-admin/admin/sweep")
            #expect(later.body["historyPruned"] == .integer(3), "\(later.body)")
            let answer = try await h.client.call(.get, "/shop/k-server/devices/dev-0/deliveries")
            #expect(answer.body["deliveries"] == .array([]))
        }
    }

    @Test(arguments: PublishHarness.Database.available)
    func withHistoryOffNothingIsRecorded(_ database: PublishHarness.Database) async throws {
        var settings = PublishHarness.fastSettings
        settings.recordHistory = false
        try await PublishHarness.with(settings: settings, database: database) { h in
            try await h.registerDevices(0..<3)
            let id = try await h.publish("news", #"{"message": "Hi"}"#)
            _ = try await h.waitFor(id, status: "published")
            let answer = try await h.client.call(.get, "/shop/k-server/devices/dev-0/deliveries")
            #expect(answer.status == .ok && answer.body["deliveries"] == .array([]))
        }
    }
}
