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
}

extension RegistrationStore {
    /// One batch of the sweeper: list up to `limit` expired keys and delete them.
    func sweepOnce(now: Timestamp, limit: Int) async throws -> Int {
        try await deleteExpired(try await expiredRegistrationKeys(now: now, limit: limit).sorted(), now: now)
    }
}
