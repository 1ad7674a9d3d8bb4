import HeraldCore
import HeraldStore
import SQLKit
import Testing

/// Live Activity tokens on every backend: stored, rotated, paged as recipients, removed with their device,
/// expired, and removed alone when APNs says a token is gone.
@Suite struct LiveActivityStoreTests {
    let t0 = Fixture.t0

    func register(_ store: SQLRegistrationStore, _ id: String, os: DeviceOS = .ios, channels: [String] = ["match"]) async throws {
        let token = os == .android ? "fcm-token-\(id)" : "aabbccdd"
        _ = try await store.register(app: "shop", try Fixture.request(id, token: token, os: os, channels: channels), now: t0)
    }

    func recipients(_ store: SQLRegistrationStore, _ target: LiveActivityTarget, limit: Int = 100) async throws -> [String] {
        let filter = RecipientFilter(
            channel: try ChannelName(validating: "match"), devices: nil, systems: [.ios], liveActivity: target)
        var cursor: Int64 = 0
        var found: [String] = []
        while true {
            let page = try await store.recipients(app: "shop", filter: filter, after: cursor, limit: limit, now: t0)
            found += page.items.map { "\($0.deviceId):\($0.deviceToken)" }
            guard let next = page.next else { return found }
            cursor = next
        }
    }

    @Test(arguments: StoreBackendKind.allCases)
    func startTokensRotateAndAStartGoesToThoseOfItsType(_ kind: StoreBackendKind) async throws {
        try await kind.withStore { store, _ in
            try await register(store, "d1")
            try await register(store, "d2")
            try await register(store, "d3")
            #expect(
                try await store.setStartToken(app: "shop", deviceId: "d1", attributesType: "Match", token: "aa01", now: t0)
                    == .stored(expiresAt: nil))
            _ = try await store.setStartToken(app: "shop", deviceId: "d1", attributesType: "Match", token: "aa02", now: t0)
            _ = try await store.setStartToken(app: "shop", deviceId: "d2", attributesType: "Delivery", token: "bb01", now: t0)
            _ = try await store.setStartToken(app: "shop", deviceId: "d3", attributesType: "Match", token: "cc01", now: t0)
            let start = LiveActivityTarget(kind: .start, attributesType: "Match")
            #expect(try await recipients(store, start) == ["d1:aa02", "d3:cc01"])
            // Another app never sees them.
            #expect(
                try await store.setStartToken(app: "blog", deviceId: "d1", attributesType: "Match", token: "ff", now: t0) == .unknownDevice)
            #expect(try await store.removeStartToken(app: "shop", deviceId: "d3", attributesType: "Match"))
            #expect(try await !store.removeStartToken(app: "shop", deviceId: "d3", attributesType: "Match"))
            #expect(try await recipients(store, start) == ["d1:aa02"])
        }
    }

    @Test(arguments: StoreBackendKind.allCases)
    func onlyAnIOSDeviceTakesLiveActivityTokens(_ kind: StoreBackendKind) async throws {
        try await kind.withStore { store, _ in
            try await register(store, "phone", os: .android)
            #expect(
                try await store.putActivity(app: "shop", deviceId: "phone", activityId: "a", attributesType: "T", token: "aa", now: t0)
                    == .notIOS(.android))
            #expect(
                try await store.setStartToken(app: "shop", deviceId: "nobody", attributesType: "T", token: "aa", now: t0) == .unknownDevice)
        }
    }

    @Test(arguments: StoreBackendKind.allCases)
    func activitiesRotateKeepTheirStartAndAreOneRecipientEach(_ kind: StoreBackendKind) async throws {
        try await kind.withStore { store, _ in
            for id in ["d1", "d2", "d3"] { try await register(store, id) }
            let later = t0.adding(milliseconds: 60_000)
            let expiry = t0.adding(milliseconds: 12 * 3_600_000)
            #expect(
                try await store.putActivity(app: "shop", deviceId: "d1", activityId: "A", attributesType: "Match", token: "a1", now: t0)
                    == .stored(expiresAt: expiry))
            // A rotation: a new token for the same activity, the start (and so the expiry) kept.
            #expect(
                try await store.putActivity(app: "shop", deviceId: "d1", activityId: "A", attributesType: "Match", token: "a2", now: later)
                    == .stored(expiresAt: expiry))
            _ = try await store.putActivity(app: "shop", deviceId: "d1", activityId: "B", attributesType: "Match", token: "b1", now: t0)
            _ = try await store.putActivity(app: "shop", deviceId: "d2", activityId: "C", attributesType: "Match", token: "c1", now: t0)
            _ = try await store.putActivity(app: "shop", deviceId: "d3", activityId: "D", attributesType: "Other", token: "d1", now: t0)
            let update = LiveActivityTarget(kind: .update, attributesType: "Match")
            // Paged one device at a time: a device's two activities stay on its page.
            #expect(try await recipients(store, update, limit: 1) == ["d1:a2", "d1:b1", "d2:c1"])
            #expect(try await recipients(store, LiveActivityTarget(kind: .end, attributesType: "Match", activityId: "B")) == ["d1:b1"])
            let listed = try #require(try await store.liveActivities(app: "shop", deviceId: "d1", now: later))
            #expect(Set(listed.activities.map(\.activityId)) == ["A", "B"])
            #expect(listed.activities.first { $0.activityId == "A" }?.startedAt == t0)
            #expect(try await store.removeActivity(app: "shop", deviceId: "d1", activityId: "A"))
            #expect(try await recipients(store, update) == ["d1:b1", "d2:c1"])
        }
    }

    @Test(arguments: StoreBackendKind.allCases)
    func anEndShortensTheLifetimeAndTheSweeperForgetsExpiredActivities(_ kind: StoreBackendKind) async throws {
        try await kind.withStore { store, _ in
            try await register(store, "d1")
            _ = try await store.putActivity(app: "shop", deviceId: "d1", activityId: "A", attributesType: "T", token: "a1", now: t0)
            _ = try await store.putActivity(app: "shop", deviceId: "d1", activityId: "B", attributesType: "T", token: "b1", now: t0)
            let ended = t0.adding(milliseconds: 3_600_000)
            #expect(try await store.endActivity(app: "shop", activityId: "A", attributesType: "T", now: ended, dismissal: nil))
            #expect(try await !store.endActivity(app: "blog", activityId: "A", attributesType: "T", now: ended, dismissal: nil))
            let listed = try #require(try await store.liveActivities(app: "shop", deviceId: "d1", now: ended))
            let a = try #require(listed.activities.first { $0.activityId == "A" })
            #expect(a.endedAt == ended && a.expiresAt == ended.adding(milliseconds: 4 * 3_600_000))
            // Five hours after the end A is gone from the recipients and the sweeper deletes it; B runs on.
            let sweep = ended.adding(milliseconds: 5 * 3_600_000)
            #expect(try await store.deleteExpiredActivities(now: sweep, limit: 100, app: "shop") == 1)
            #expect(try await store.liveActivities(app: "shop", deviceId: "d1", now: sweep)?.activities.map(\.activityId) == ["B"])
            #expect(try await store.deleteExpiredActivities(now: t0.adding(milliseconds: 12 * 3_600_000), limit: 100, app: nil) == 1)
        }
    }

    @Test(arguments: StoreBackendKind.allCases)
    func tokensGoWithTheirDevice(_ kind: StoreBackendKind) async throws {
        try await kind.withStore { store, backend in
            try await register(store, "d1")
            _ = try await store.setStartToken(app: "shop", deviceId: "d1", attributesType: "T", token: "aa", now: t0)
            _ = try await store.putActivity(app: "shop", deviceId: "d1", activityId: "A", attributesType: "T", token: "bb", now: t0)
            #expect(try await store.unregister(app: "shop", deviceId: "d1", now: t0))
            let left = try await backend.read { db in
                let starts = try await db.raw("SELECT COUNT(*) AS n FROM activity_start_tokens").first()?.decode(column: "n", as: Int.self)
                let activities = try await db.raw("SELECT COUNT(*) AS n FROM live_activities").first()?.decode(column: "n", as: Int.self)
                return (starts ?? -1) + (activities ?? -1)
            }
            #expect(left == 0)
        }
    }

    @Test(arguments: StoreBackendKind.allCases)
    func aGoneLiveActivityTokenIsRemovedAndTheDeviceKept(_ kind: StoreBackendKind) async throws {
        try await kind.withStore { store, backend in
            try await register(store, "d1")
            _ = try await store.putActivity(app: "shop", deviceId: "d1", activityId: "A", attributesType: "T", token: "a1", now: t0)
            _ = try await store.putActivity(app: "shop", deviceId: "d1", activityId: "B", attributesType: "T", token: "b1", now: t0)
            let messages = SQLMessageStore(backend: backend, clock: .caller)
            let target = LiveActivityTarget(kind: .update, attributesType: "T")
            try await messages.insert(
                StoredMessage(
                    id: "message:la", app: "shop", channel: try Fixture.channel("match"), contents: nil, liveActivity: target,
                    dueAt: t0, createdAt: t0), now: t0)
            #expect(try await messages.message(app: "shop", id: "message:la")?.liveActivity == target)
            _ = try await messages.claimSlices(owner: "a", now: t0, leaseUntil: t0.adding(milliseconds: 1000), limit: 1)
            let key = try await backend.read { db in
                try await db.raw("SELECT id FROM devices WHERE device_id = 'd1'").first()?.decode(column: "id", as: Int64.self)
            }
            let checkpoint = FanOutCheckpoint(
                messageId: "message:la", cursor: nil, failed: 1, byProvider: [.apns: ProviderCounts(failed: 1)], pending: 0,
                remove: [
                    TokenRemoval(deviceKey: try #require(key), deviceToken: "a1", invalidSince: nil, provider: .apns, liveActivity: true)
                ])
            _ = try await messages.checkpoint(checkpoint, owner: "a", now: t0, leaseUntil: t0.adding(milliseconds: 1000))
            #expect(try await recipients(store, target) == ["d1:b1"])
            #expect(try await store.device(app: "shop", deviceId: "d1", now: t0) != nil)
            #expect(
                try await messages.message(app: "shop", id: "message:la")?.deliveries[.apns] == ProviderCounts(failed: 1, tokensRemoved: 1))
        }
    }
}
