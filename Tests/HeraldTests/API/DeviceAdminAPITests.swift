import APNsMock
import HeraldCore
import HeraldStore
import Hummingbird
import HummingbirdTesting
import SQLKit
import Testing

/// The registry's admin routes over HTTP: a device's record, switching it off and on, erasure, launches.
@Suite struct DeviceAdminAPITests {
    let admin = "/shop/k-admin/devices"

    @Test(arguments: PublishHarness.Database.available)
    func theRecordShowsWhatTheRegistryKnows(_ database: PublishHarness.Database) async throws {
        try await TestHerald.with(database: database) { h in
            _ = try await h.client.call(
                .post, "/shop/k-client/messaging/registrations",
                json:
                    #"{"deviceToken": "ab01", "deviceId": "d1", "osVersion": "18.1", "channels": ["news"], "appVersion": "3.0", "installId": "i-1"}"#
            )
            _ = try await h.client.call(.post, "/shop/k-client/devices/d1/launches")
            let answer = try await h.client.call(.get, admin + "/d1")
            #expect(answer.status == .ok, "\(answer.body)")
            let t0 = JSONValue.integer(TestHerald.t0.milliseconds)
            #expect(answer.body["deviceId"] == .string("d1"))
            #expect(answer.body["deviceToken"] == .string("ab01"))
            #expect(answer.body["os"] == .string("IOS") && answer.body["osVersion"] == .string("18.1"))
            #expect(answer.body["installId"] == .string("i-1") && answer.body["appVersion"] == .string("3.0"))
            #expect(answer.body["deviceName"] == .null && answer.body["location"] == .null)
            #expect(answer.body["channels"] == .array([.object(["name": .string("news"), "expiration": .null])]))
            #expect(
                answer.body["isActive"] == .bool(true) && answer.body["inactiveReason"] == .null && answer.body["deactivatedBy"] == .null)
            #expect(answer.body["launchCount"] == .integer(1) && answer.body["firstLaunchAt"] == t0 && answer.body["lastLaunchAt"] == t0)
            #expect(answer.body["createdAt"] == t0 && answer.body["lastSeenAt"] == t0)

            // A device only launched, never registered: no token, no os, no channels.
            _ = try await h.client.call(.post, "/shop/k-client/devices/fresh/launches")
            let fresh = try await h.client.call(.get, admin + "/fresh")
            #expect(fresh.body["deviceToken"] == .null && fresh.body["os"] == .null && fresh.body["channels"] == .array([]))

            // Admin only, and app-scoped.
            for (path, role) in [("/shop/k-client/devices/d1", "client"), ("/shop/k-server/devices/d1", "server")] {
                let refused = try await h.client.call(.get, path)
                #expect(refused.status == .forbidden && refused.body.code == 5007, "\(role)")
            }
            let otherApp = try await h.client.call(.get, "/blog/b-admin/devices/d1")
            #expect(otherApp.status == .notFound && otherApp.body.code == 5000)
            #expect(try await h.client.call(.get, admin + "/nobody").body.code == 5000)
        }
    }

    @Test(arguments: PublishHarness.Database.available)
    func anAdminSwitchesADeviceOffAndOnAndTheLaunchCheckSaysSo(_ database: PublishHarness.Database) async throws {
        try await TestHerald.with(database: database) { h in
            _ = try await h.client.call(
                .post, "/shop/k-client/messaging/registrations", json: #"{"deviceToken": "ab01", "deviceId": "d1"}"#)
            let off = try await h.client.call(.post, admin + "/d1/deactivate", json: #"{"reason": "chargeback fraud"}"#)
            #expect(off.status == .ok && off.body == .object(["result": .bool(true), "isActive": .bool(false)]))
            let refused = try await h.client.call(.post, "/shop/k-client/devices/d1/launches")
            #expect(refused.body["allowed"] == .bool(false) && refused.body["reason"] == .string("chargeback fraud"))
            let record = try await h.client.call(.get, admin + "/d1")
            #expect(record.body["isActive"] == .bool(false) && record.body["deactivatedBy"] == .string("admin"))
            #expect(record.body["inactiveReason"] == .string("chargeback fraud"))

            // A re-registration with a new token does not lift it; activate does.
            _ = try await h.client.call(
                .post, "/shop/k-client/messaging/registrations", json: #"{"deviceToken": "cd02", "deviceId": "d1"}"#)
            #expect(try await h.client.call(.post, "/shop/k-client/devices/d1/launches").body["allowed"] == .bool(false))
            let on = try await h.client.call(.post, admin + "/d1/activate")
            #expect(on.body == .object(["result": .bool(true), "isActive": .bool(true)]))
            #expect(try await h.client.call(.post, "/shop/k-client/devices/d1/launches").body["allowed"] == .bool(true))

            let long = try await h.client.call(
                .post, admin + "/d1/deactivate", json: #"{"reason": "\#(String(repeating: "r", count: 513))"}"#)
            #expect(long.status == .badRequest && long.body.code == 8000)
            #expect(try await h.client.call(.post, admin + "/nobody/deactivate").body.code == 5000)
            #expect(try await h.client.call(.post, "/shop/k-server/devices/d1/deactivate").body.code == 5007)
        }
    }

    /// An admin's switch-off holds the device back from a publish; the others still get it.
    @Test(arguments: PublishHarness.Database.available)
    func aDeactivatedDeviceGetsNoPush(_ database: PublishHarness.Database) async throws {
        try await PublishHarness.with(database: database) { h in
            try await h.registerDevices(0..<3)
            let off = try await h.client.call(.post, "/shop/k-admin/devices/dev-1/deactivate", json: #"{"reason": "test"}"#)
            #expect(off.status == .ok)
            let id = try await h.publish("news", #"{"message": "Hi"}"#)
            let status = try await h.waitFor(id, status: "published")
            #expect(status["deliveries"]?["sent"] == .integer(2))
            #expect(status["deliveries"]?["targeted"] == .integer(2))
            let tokens = Set(h.mock.notifications().map(\.token))
            #expect(tokens == [PublishHarness.token(0), PublishHarness.token(2)])
        }
    }

    @Test(arguments: PublishHarness.Database.available)
    func erasureLeavesNothingBehind(_ database: PublishHarness.Database) async throws {
        try await TestHerald.with(database: database) { h in
            _ = try await h.client.call(
                .post, "/shop/k-client/messaging/registrations", json: #"{"deviceToken": "ab01", "deviceId": "d1", "channels": ["a", "b"]}"#
            )
            for _ in 0..<3 { _ = try await h.client.call(.post, "/shop/k-client/devices/d1/launches") }
            _ = try await h.client.call(
                .post, "/shop/k-client/messaging/registrations", json: #"{"deviceToken": "ab02", "deviceId": "keep"}"#)

            #expect(try await h.client.call(.delete, "/blog/b-admin/devices/d1").body.code == 5000, "not another app's to erase")
            let erased = try await h.client.call(.delete, admin + "/d1")
            #expect(erased.status == .ok && erased.body == .object(["result": .bool(true)]))
            #expect(try await h.client.call(.get, admin + "/d1").body.code == 5000)
            #expect(try await h.client.call(.get, "/shop/k-client/messaging/registrations/d1").body.code == 5000)
            #expect(try await h.client.call(.delete, admin + "/d1").body.code == 5000)
            let rows = try await h.store.rowCounts()
            #expect(rows == ["devices": 1, "registrations": 1, "launches": 0], "only the other device's rows are left")
        }
    }

    @Test(arguments: PublishHarness.Database.available)
    func theListingFiltersAndPages(_ database: PublishHarness.Database) async throws {
        try await TestHerald.with(database: database) { h in
            for (id, os, version) in [("p1", "IOS", "2.0"), ("p2", "ANDROID", "2.0"), ("p3", "IOS", "1.0")] {
                let answer = try await h.client.call(
                    .post, "/shop/k-client/messaging/registrations",
                    json:
                        #"{"deviceToken": "ab01", "deviceId": "\#(id)", "os": "\#(os)", "appVersion": "\#(version)", "channels": ["news"]}"#
                )
                #expect(answer.status == .ok)
            }
            let all = try await h.client.call(.get, admin + "?limit=2")
            #expect(all.status == .ok, "\(all.body)")
            guard case .array(let first)? = all.body["devices"], case .string(let cursor)? = all.body["nextCursor"] else {
                Issue.record("no page in \(all.body)")
                return
            }
            #expect(first.map { $0["deviceId"] } == [.string("p1"), .string("p2")])
            #expect(first[0]["channels"] == nil, "the listing leaves channels out")
            #expect(first[0]["appVersion"] == .string("2.0") && first[0]["isActive"] == .bool(true))
            let rest = try await h.client.call(.get, admin + "?limit=2&cursor=\(cursor)")
            #expect(rest.body["devices"]?[0]?["deviceId"] == .string("p3") && rest.body["nextCursor"] == .null)

            let filtered = try await h.client.call(.get, admin + "?os=ios&appVersion=2.0&channel=news&active=true&q=P")
            #expect(filtered.body["devices"]?[0]?["deviceId"] == .string("p1") && filtered.body["devices"]?[1] == nil, "\(filtered.body)")

            let bad: [(String, Int64)] = [
                ("active=maybe", 8008), ("seenSince=yesterday", 8008), ("limit=1001", 8008), ("os=BeOS", 8008), ("cursor=-3", 8008),
                ("channel=no%20spaces", 5044), ("q=" + String(repeating: "q", count: 129), 8000),
            ]
            for (query, code) in bad {
                let refused = try await h.client.call(.get, admin + "?" + query)
                #expect(refused.status == .badRequest && refused.body.code == code, "\(query): \(refused.body)")
            }
            #expect(try await h.client.call(.get, "/shop/k-server/devices").body.code == 5007)
            #expect(try await h.client.call(.get, "/blog/b-admin/devices").body["devices"] == .array([]), "another app's admin sees none")
        }
    }

    @Test(arguments: PublishHarness.Database.available)
    func launchesArePagedNewestFirst(_ database: PublishHarness.Database) async throws {
        try await TestHerald.with(database: database) { h in
            for n in 1...5 {
                h.clock.advance(milliseconds: 1000)
                _ = try await h.client.call(.post, "/shop/k-client/devices/d1/launches", json: #"{"appBuild": "\#(n)"}"#)
            }
            var builds: [String] = []
            var cursor: String?
            var pages = 0
            repeat {
                let page = try await h.client.call(.get, admin + "/d1/launches?limit=2" + (cursor.map { "&cursor=\($0)" } ?? ""))
                #expect(page.status == .ok, "\(page.body)")
                guard case .array(let launches)? = page.body["launches"] else { break }
                #expect(launches.count <= 2)
                for launch in launches { if case .string(let build)? = launch["appBuild"] { builds.append(build) } }
                if case .string(let next)? = page.body["nextCursor"] { cursor = next } else { cursor = nil }
                pages += 1
            } while cursor != nil && pages < 10
            #expect(builds == ["5", "4", "3", "2", "1"])
            #expect(pages == 3)
            #expect(try await h.client.call(.get, admin + "/d1/launches?limit=0").body.code == 8008)
            #expect(try await h.client.call(.get, admin + "/d1/launches?cursor=abc").body.code == 8008)
            #expect(try await h.client.call(.get, admin + "/nobody/launches").body.code == 5000)
        }
    }
}

extension SQLRegistrationStore {
    /// Rows in the registry's tables, to show what an erasure left.
    func rowCounts() async throws -> [String: Int] {
        var counts: [String: Int] = [:]
        for table in ["devices", "registrations", "launches"] {
            counts[table] = try await backend.read { db in
                try await db.raw("SELECT COUNT(*) AS n FROM \(ident: table)").first()?.decode(column: "n", as: Int.self) ?? -1
            }
        }
        return counts
    }
}
