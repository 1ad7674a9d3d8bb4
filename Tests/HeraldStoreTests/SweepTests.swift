import HeraldCore
import HeraldStore
import Testing

@Suite struct SweepTests {
    let t0 = Fixture.t0

    @Test(arguments: StoreBackendKind.allCases)
    func sweepRemovesOnlyExpiredInBatches(_ kind: StoreBackendKind) async throws {
        try await kind.withStore { store, _ in
            for index in 0..<30 {
                let expires = index < 12 ? t0.adding(milliseconds: 50) : t0.adding(milliseconds: 10_000)
                _ = try await store.register(app: "shop", try Fixture.request("d\(index)", channels: ["news"], expiresAt: expires), now: t0)
            }
            _ = try await store.register(app: "shop", try Fixture.request("forever", channels: ["news"]), now: t0)
            let now = t0.adding(milliseconds: 50)
            #expect(try await store.sweepOnce(now: now, limit: 5) == 5)
            #expect(try await store.sweepOnce(now: now, limit: 5) == 5)
            #expect(try await store.sweepOnce(now: now, limit: 5) == 2)
            #expect(try await store.sweepOnce(now: now, limit: 5) == 0)
            #expect(try await store.channels(app: "shop", now: t0).first?.registrations == 19)
            #expect(try await store.device(app: "shop", deviceId: "forever", now: now) != nil)
        }
    }

    @Test(arguments: StoreBackendKind.allCases)
    func aDeviceWhoseLastChannelExpiredIsGoneAfterTheSweep(_ kind: StoreBackendKind) async throws {
        try await kind.withStore { store, _ in
            _ = try await store.register(
                app: "shop", try Fixture.request("gone", channels: ["a"], expiresAt: t0.adding(milliseconds: 10)), now: t0)
            _ = try await store.register(
                app: "shop", try Fixture.request("stays", channels: ["a"], expiresAt: t0.adding(milliseconds: 10)), now: t0)
            _ = try await store.register(app: "shop", try Fixture.request("stays", channels: ["b"]), now: t0)
            let now = t0.adding(milliseconds: 10)
            #expect(try await store.sweepOnce(now: now, limit: 100) == 2)
            // Registering "gone" again starts a new device: its old row was deleted with its last registration.
            let again = try await store.register(app: "shop", try Fixture.request("gone", channels: ["a"]), now: now)
            let device = try #require(try await store.device(app: "shop", deviceId: "gone", now: now))
            #expect(device.createdAt == now, "the swept device row was removed, so this is a new one")
            #expect(device.registrationId == again.registrationId)
            #expect(try await store.device(app: "shop", deviceId: "stays", now: now)?.channels.map(\.rawValue) == ["b"])
        }
    }

    @Test(arguments: StoreBackendKind.allCases)
    func reRegisteringBeforeTheSweepRescuesTheRegistration(_ kind: StoreBackendKind) async throws {
        try await kind.withStore { store, _ in
            _ = try await store.register(
                app: "shop", try Fixture.request("d1", channels: ["a"], expiresAt: t0.adding(milliseconds: 10)), now: t0)
            let now = t0.adding(milliseconds: 20)
            #expect(try await store.device(app: "shop", deviceId: "d1", now: now) == nil)
            _ = try await store.register(app: "shop", try Fixture.request("d1", channels: ["a"]), now: now)
            #expect(try await store.sweepOnce(now: now, limit: 100) == 0)
            #expect(try await store.device(app: "shop", deviceId: "d1", now: now)?.channels.map(\.rawValue) == ["a"])
        }
    }

    @Test(arguments: StoreBackendKind.allCases)
    func aRenewalBetweenListingAndDeletingIsKept(_ kind: StoreBackendKind) async throws {
        try await kind.withStore { store, _ in
            _ = try await store.register(
                app: "shop", try Fixture.request("d1", channels: ["a"], expiresAt: t0.adding(milliseconds: 10)), now: t0)
            _ = try await store.register(
                app: "shop", try Fixture.request("d2", channels: ["a"], expiresAt: t0.adding(milliseconds: 10)), now: t0)
            let now = t0.adding(milliseconds: 10)
            let keys = try await store.expiredRegistrationKeys(now: now, limit: 100)
            #expect(keys.count == 2)
            _ = try await store.register(
                app: "shop", try Fixture.request("d1", channels: ["a"], expiresAt: t0.adding(milliseconds: 99_000)), now: now)
            #expect(try await store.deleteExpired(keys, now: now) == 1)
            #expect(try await store.device(app: "shop", deviceId: "d1", now: now)?.channels.map(\.rawValue) == ["a"])
            #expect(try await store.device(app: "shop", deviceId: "d2", now: now) == nil)
        }
    }

    /// sweeper.emptyChannelDays: a channel goes once the sweeps have found it without registrations for
    /// the whole time; one that got a registration meanwhile stays (its mark is cleared), and the app
    /// scope of an admin's sweep holds.
    @Test(arguments: StoreBackendKind.allCases)
    func channelsEmptyForTheWholeRetentionAreRemoved(_ kind: StoreBackendKind) async throws {
        try await kind.withStore { store, _ in
            let day: Int64 = 86_400_000
            _ = try await store.register(app: "shop", try Fixture.request("d1", channels: ["kept", "emptied", "refilled"]), now: t0)
            _ = try await store.register(app: "other", try Fixture.request("d1", channels: ["emptied"]), now: t0)
            #expect(
                try await store.unregister(
                    app: "shop", deviceId: "d1", channels: [Fixture.channel("emptied"), Fixture.channel("refilled")], now: t0) == 1)
            #expect(try await store.unregister(app: "other", deviceId: "d1", now: t0))
            // First sweep: notes both empty channels of shop (and other's, but only for its own scope later).
            #expect(try await store.removeEmptyChannels(emptySince: t0.adding(milliseconds: -day), now: t0, batchSize: 1, app: nil) == 0)
            // "refilled" gets a registration again before the retention ends.
            _ = try await store.register(
                app: "shop", try Fixture.request("d2", channels: ["refilled"]), now: t0.adding(milliseconds: day / 2))
            let later = t0.adding(milliseconds: day + 1)
            #expect(
                try await store.removeEmptyChannels(emptySince: later.adding(milliseconds: -day), now: later, batchSize: 1, app: "shop")
                    == 1)
            #expect(try await store.channels(app: "shop", now: later).map(\.name.rawValue) == ["kept", "refilled"])
            #expect(try await store.channels(app: "other", now: later).map(\.name.rawValue) == ["emptied"], "another app's scope")
            // "refilled" empties again: its clock starts over at the sweep that finds it empty.
            #expect(try await store.unregister(app: "shop", deviceId: "d2", now: later))
            #expect(
                try await store.removeEmptyChannels(emptySince: later.adding(milliseconds: -day), now: later, batchSize: 1, app: nil) == 1)
            #expect(try await store.channels(app: "shop", now: later).map(\.name.rawValue) == ["kept", "refilled"])
            #expect(try await store.channels(app: "other", now: later).isEmpty)
            let muchLater = later.adding(milliseconds: day + 1)
            #expect(
                try await store.removeEmptyChannels(
                    emptySince: muchLater.adding(milliseconds: -day), now: muchLater, batchSize: 1, app: nil) == 1)
            #expect(try await store.channels(app: "shop", now: muchLater).map(\.name.rawValue) == ["kept"])
            // Registering into a removed channel makes it again.
            _ = try await store.register(app: "shop", try Fixture.request("d3", channels: ["emptied"]), now: muchLater)
            #expect(try await store.channels(app: "shop", now: muchLater).map(\.name.rawValue) == ["emptied", "kept"])
        }
    }
}

extension RegistrationStore {
    /// One batch of the sweeper: list up to `limit` expired keys and delete them.
    func sweepOnce(now: Timestamp, limit: Int) async throws -> Int {
        try await deleteExpired(try await expiredRegistrationKeys(now: now, limit: limit).sorted(), now: now)
    }
}
