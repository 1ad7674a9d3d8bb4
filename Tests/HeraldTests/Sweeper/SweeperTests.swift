import Foundation
import Herald
import HeraldCore
import HeraldStore
import Hummingbird
import HummingbirdTesting
import Logging
import SQLKit
import Testing

@Suite struct SweeperTests {
    @Test func adminSweepRemovesExpiredAndReportsIt() async throws {
        try await TestHerald.with { h in
            let register = "/shop/k-client/messaging/registrations"
            let soon = TestHerald.t0.milliseconds + 1_000
            for index in 0..<5 {
                try await h.client.call(.post, register, json: #"{"deviceToken": "ab", "deviceId": "e\#(index)", "expiration": \#(soon)}"#)
            }
            try await h.client.call(.post, register, json: #"{"deviceToken": "ab", "deviceId": "keep"}"#)
            let early = try await h.client.call(.post, "/shop/k-admin/admin/sweep")
            #expect(early.body["removed"] == .integer(0))
            h.clock.advance(milliseconds: 1_000)
            let swept = try await h.client.call(.post, "/shop/k-admin/admin/sweep")
            #expect(swept.status == .ok)
            #expect(swept.body["removed"] == .integer(5))
            #expect(
                Set(swept.body.keys) == [
                    "removed", "historyPruned", "messagesPruned", "channelsRemoved", "liveActivitiesRemoved", "idempotencyKeysRemoved",
                    "durationMs",
                ])
            #expect(try await h.client.call(.get, register + "/e0").body.code == 5000)
            #expect(try await h.client.call(.get, register + "/keep").status == .ok)
            #expect(try await h.client.call(.get, "/shop/k-admin/messaging/channels").body[0]?["registrations"] == .integer(1))
        }
    }

    @Test(arguments: PublishHarness.Database.available)
    func anAdminSweepsOnlyItsOwnApp(_ database: PublishHarness.Database) async throws {
        try await TestHerald.with(database: database) { h in
            let soon = TestHerald.t0.milliseconds + 1_000
            for app in ["shop", "blog"] {
                for index in 0..<3 {
                    let body = #"{"deviceToken": "ab", "deviceId": "e\#(index)", "channels": ["news"], "expiration": \#(soon)}"#
                    let request = try RegistrationRequest(json: try JSONValue.parse(Array(body.utf8)), now: h.clock.now)
                    _ = try await h.store.register(app: app, request, now: h.clock.now)
                }
            }
            h.clock.advance(milliseconds: 1_000)
            let blog = try await h.client.call(.post, "/blog/b-admin/admin/sweep")
            #expect(blog.body["removed"] == .integer(3))
            #expect(try await h.client.call(.get, "/shop/k-client/messaging/registrations/e0").body.code == 5000, "expired: invisible")
            // shop's expired rows are still stored: its own admin's sweep removes them.
            let stored = try await h.store.backend.read { db in
                try await db.raw("SELECT COUNT(*) AS n FROM registrations").first()?.decode(column: "n", as: Int.self)
            }
            #expect(stored == 3)
            #expect(try await h.client.call(.post, "/shop/k-admin/admin/sweep").body["removed"] == .integer(3))
        }
    }

    @Test func sweeperWorksThroughEveryBatch() async throws {
        let logger = Logger(label: "herald.tests")
        let backend = try await HeraldRuntime.openMigrated(.sqliteMemory, logger: logger)
        let store = SQLRegistrationStore(backend: backend)
        let clock = ManualClock(TestHerald.t0)
        for index in 0..<23 {
            let request = RegistrationRequest(
                deviceId: try DeviceID(validating: "d\(index)"), deviceToken: try DeviceToken(validating: "ab", os: .ios),
                os: .ios, osVersion: nil, channels: [], expiration: Expiration(timestamp: TestHerald.t0.adding(milliseconds: 10)))
            _ = try await store.register(app: "shop", request, now: TestHerald.t0)
        }
        clock.advance(milliseconds: 10)
        let report = try await Sweeper(store: store, clock: clock, batchSize: 4, logger: logger).sweep(trigger: "test")
        #expect(report.removed == 23)
        #expect(try await store.channels(app: "shop", now: clock.now).first?.registrations == 0)
        try await backend.close()
    }

    /// The real DispatchSourceTimer, on the real clock: a registration that expires is removed without anyone asking.
    @Test func theTimerSweepsByItself() async throws {
        let logger = Logger(label: "herald.tests")
        let backend = try await HeraldRuntime.openMigrated(.sqliteMemory, logger: logger)
        let store = SQLRegistrationStore(backend: backend)
        let clock = SystemClock()
        let request = RegistrationRequest(
            deviceId: try DeviceID(validating: "short-lived"), deviceToken: try DeviceToken(validating: "ab", os: .ios),
            os: .ios, osVersion: nil, channels: [], expiration: Expiration(timestamp: clock.now.adding(milliseconds: 150)))
        _ = try await store.register(app: "shop", request, now: clock.now)
        let service = SweeperService(
            sweeper: Sweeper(store: store, clock: clock, batchSize: 100, logger: logger),
            intervalSeconds: 0.05, logger: logger)
        let removed = try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask {
                try await service.run()
                return false
            }
            group.addTask {
                // Poll the raw table (not the expiry-filtered view) until the row is physically gone.
                for _ in 0..<100 {
                    try await Task.sleep(for: .milliseconds(50))
                    let rows = try await backend.read { db in
                        try await db.raw("SELECT COUNT(*) AS n FROM registrations").first()?.decode(column: "n", as: Int.self)
                    }
                    if rows == 0 { return true }
                }
                return false
            }
            let first = try await group.next()!
            group.cancelAll()
            return first
        }
        #expect(removed, "the timer removed the expired registration within 5 s")
        try await backend.close()
    }
}
