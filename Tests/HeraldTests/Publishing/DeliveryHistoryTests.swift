import APNsMock
import Herald
import HeraldCore
import HeraldDispatch
import Hummingbird
import HummingbirdTesting
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
