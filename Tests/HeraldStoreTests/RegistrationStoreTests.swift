import HeraldCore
import HeraldStore
import Testing

/// The store's behaviour, described once and run against every backend.
@Suite struct RegistrationStoreTests {
    let t0 = Fixture.t0

    @Test(arguments: StoreBackendKind.allCases)
    func registerThenReadBack(_ kind: StoreBackendKind) async throws {
        try await kind.withStore { store, _ in
            let receipt = try await store.register(app: "shop", try Fixture.request("d1", channels: ["news", "default"]), now: t0)
            #expect(Set(receipt.channelRegistrationIds.keys.map(\.rawValue)) == ["news", "default"])
            let device = try #require(try await store.device(app: "shop", deviceId: "d1", now: t0))
            #expect(device.registrationId == receipt.registrationId)
            #expect(device.deviceToken == "aabbccdd")
            #expect(device.channels.map(\.rawValue) == ["default", "news"])
            #expect(device.expiration == nil)
            #expect(device.os == .ios && device.osVersion == "17.2")
            #expect(device.isActive)
            #expect(device.createdAt == t0 && device.lastSeenAt == t0)
        }
    }

    /// Metadata round-trips, and a re-registration (also two calls in one batch) updates what it sends
    /// and keeps the rest.
    @Test(arguments: StoreBackendKind.allCases)
    func metadataIsKeptAndUpdatedFieldByField(_ kind: StoreBackendKind) async throws {
        try await kind.withStore { store, _ in
            var first = try Fixture.request("d1")
            first.metadata = DeviceMetadata(
                installId: "install-1", deviceName: "John’s iPhone", deviceModel: "iPhone15,2", appVersion: "2.3", appBuild: "7",
                locale: "de-CH", timeZone: "Europe/Zurich", location: DeviceLocation(lat: 47.5, lon: 8.25, accuracy: 12))
            _ = try await store.register(app: "shop", first, now: t0)
            #expect(try await store.device(app: "shop", deviceId: "d1", now: t0)?.metadata == first.metadata)

            var update = try Fixture.request("d1", token: "eeff0011")
            update.metadata = DeviceMetadata(appVersion: "2.4", location: DeviceLocation(lat: -33, lon: 151))
            _ = try await store.register(app: "shop", update, now: t0.adding(milliseconds: 1))
            var expected = first.metadata
            expected.appVersion = "2.4"
            expected.location = DeviceLocation(lat: -33, lon: 151)
            #expect(try await store.device(app: "shop", deviceId: "d1", now: t0)?.metadata == expected)

            // A plain Backendless registration (no metadata) changes none of it.
            _ = try await store.register(app: "shop", try Fixture.request("d1"), now: t0.adding(milliseconds: 2))
            #expect(try await store.device(app: "shop", deviceId: "d1", now: t0)?.metadata == expected)

            // Two calls for one device that land in the same batch merge as if applied in order.
            var a = try Fixture.request("d2")
            a.metadata = DeviceMetadata(installId: "install-2", locale: "fr")
            var b = try Fixture.request("d2")
            b.metadata = DeviceMetadata(locale: "fr-CA")
            async let one = store.register(app: "shop", a, now: t0)
            async let two = store.register(app: "shop", b, now: t0.adding(milliseconds: 1))
            _ = try await (one, two)
            let merged = try await store.device(app: "shop", deviceId: "d2", now: t0)?.metadata
            #expect(merged?.installId == "install-2")
            #expect(merged?.locale == "fr-CA" || merged?.locale == "fr", "whichever call the store applied last")
        }
    }

    @Test(arguments: StoreBackendKind.allCases)
    func appsAreIsolated(_ kind: StoreBackendKind) async throws {
        try await kind.withStore { store, _ in
            _ = try await store.register(app: "shop", try Fixture.request("d1"), now: t0)
            #expect(try await store.device(app: "other", deviceId: "d1", now: t0) == nil)
            #expect(try await store.channels(app: "other", now: t0).isEmpty)
            #expect(try await store.unregister(app: "other", deviceId: "d1", now: t0) == false)
            #expect(try await store.device(app: "shop", deviceId: "d1", now: t0) != nil)
        }
    }

    @Test(arguments: StoreBackendKind.allCases)
    func registeringAgainIsAdditivePerChannelAndUpdatesTheDevice(_ kind: StoreBackendKind) async throws {
        try await kind.withStore { store, _ in
            let first = try await store.register(
                app: "shop", try Fixture.request("d1", channels: ["a", "b"], expiresAt: t0.adding(milliseconds: 10_000)), now: t0)
            let later = t0.adding(milliseconds: 5_000)
            let second = try await store.register(
                app: "shop",
                try Fixture.request(
                    "d1", token: "eeff0011", channels: ["b", "c"], expiresAt: t0.adding(milliseconds: 60_000), osVersion: "18.0"),
                now: later)
            #expect(second.registrationId == first.registrationId, "the registration id is stable per app + deviceId")
            #expect(second.channelRegistrationIds[try Fixture.channel("b")] == first.channelRegistrationIds[try Fixture.channel("b")])
            let device = try #require(try await store.device(app: "shop", deviceId: "d1", now: later))
            #expect(device.channels.map(\.rawValue) == ["a", "b", "c"], "channel a, not listed again, stays")
            #expect(device.deviceToken == "eeff0011")
            #expect(device.osVersion == "18.0")
            #expect(device.createdAt == t0)
            #expect(device.lastSeenAt == later)
            #expect(device.expiration == t0.adding(milliseconds: 10_000), "the earliest live expiration is a's")
            // After a's expiration only b and c (re-registered with the later expiration) remain.
            let afterA = t0.adding(milliseconds: 10_000)
            let rest = try #require(try await store.device(app: "shop", deviceId: "d1", now: afterA))
            #expect(rest.channels.map(\.rawValue) == ["b", "c"])
            #expect(rest.expiration == t0.adding(milliseconds: 60_000))
        }
    }

    @Test(arguments: StoreBackendKind.allCases)
    func expiredRegistrationsAreInvisibleBeforeAnySweep(_ kind: StoreBackendKind) async throws {
        try await kind.withStore { store, _ in
            let expiry = t0.adding(milliseconds: 1_000)
            _ = try await store.register(app: "shop", try Fixture.request("d1", channels: ["news"], expiresAt: expiry), now: t0)
            #expect(try await store.device(app: "shop", deviceId: "d1", now: expiry.adding(milliseconds: -1)) != nil)
            #expect(try await store.device(app: "shop", deviceId: "d1", now: expiry) == nil, "expired at its expiration instant")
            #expect(
                try await store.channels(app: "shop", now: expiry) == [ChannelSummary(name: try Fixture.channel("news"), registrations: 0)])
            #expect(
                try await store.members(app: "shop", channel: try Fixture.channel("news"), after: 0, limit: 10, now: expiry).items.isEmpty)
            #expect(try await store.unregister(app: "shop", deviceId: "d1", now: expiry) == false)
        }
    }

    @Test(arguments: StoreBackendKind.allCases)
    func unregisterRemovesEverything(_ kind: StoreBackendKind) async throws {
        try await kind.withStore { store, _ in
            _ = try await store.register(app: "shop", try Fixture.request("d1", channels: ["a", "b"]), now: t0)
            #expect(try await store.unregister(app: "shop", deviceId: "d1", now: t0))
            #expect(try await store.device(app: "shop", deviceId: "d1", now: t0) == nil)
            #expect(try await store.members(app: "shop", channel: try Fixture.channel("a"), after: 0, limit: 10, now: t0).items.isEmpty)
            #expect(try await store.unregister(app: "shop", deviceId: "d1", now: t0) == false)
        }
    }

    @Test(arguments: StoreBackendKind.allCases)
    func unregisterSomeChannelsReportsWhatRemains(_ kind: StoreBackendKind) async throws {
        try await kind.withStore { store, _ in
            _ = try await store.register(app: "shop", try Fixture.request("d1", channels: ["a", "b", "c"]), now: t0)
            #expect(
                try await store.unregister(
                    app: "shop", deviceId: "d1", channels: [try Fixture.channel("a"), try Fixture.channel("zz")], now: t0) == 2)
            #expect(try await store.device(app: "shop", deviceId: "d1", now: t0)?.channels.map(\.rawValue) == ["b", "c"])
            #expect(
                try await store.unregister(
                    app: "shop", deviceId: "d1", channels: [try Fixture.channel("b"), try Fixture.channel("c")], now: t0) == 0)
            #expect(try await store.device(app: "shop", deviceId: "d1", now: t0) == nil, "no channel left: the device is gone")
            #expect(try await store.unregister(app: "shop", deviceId: "d1", channels: [try Fixture.channel("a")], now: t0) == nil)
        }
    }

    @Test(arguments: StoreBackendKind.allCases)
    func channelsAreListedWithLiveCountsAndCanBeDeleted(_ kind: StoreBackendKind) async throws {
        try await kind.withStore { store, _ in
            _ = try await store.register(app: "shop", try Fixture.request("d1", channels: ["a", "b"]), now: t0)
            _ = try await store.register(
                app: "shop", try Fixture.request("d2", channels: ["a"], expiresAt: t0.adding(milliseconds: 10)), now: t0)
            let later = t0.adding(milliseconds: 10)
            #expect(try await store.channels(app: "shop", now: t0).map { "\($0.name):\($0.registrations)" } == ["a:2", "b:1"])
            #expect(try await store.channels(app: "shop", now: later).map { "\($0.name):\($0.registrations)" } == ["a:1", "b:1"])
            #expect(try await store.deleteChannel(app: "shop", name: try Fixture.channel("a")))
            #expect(try await store.deleteChannel(app: "shop", name: try Fixture.channel("a")) == false)
            #expect(try await store.channels(app: "shop", now: t0).map(\.name.rawValue) == ["b"])
            #expect(try await store.device(app: "shop", deviceId: "d1", now: t0)?.channels.map(\.rawValue) == ["b"])
            #expect(try await store.device(app: "shop", deviceId: "d2", now: t0) == nil)
        }
    }

    @Test(arguments: StoreBackendKind.allCases)
    func membersPageByCursorAndSkipExpired(_ kind: StoreBackendKind) async throws {
        try await kind.withStore { store, _ in
            for index in 0..<25 {
                let expires: Timestamp? = index % 5 == 0 ? t0.adding(milliseconds: 100) : nil
                _ = try await store.register(app: "shop", try Fixture.request("d\(index)", channels: ["big"], expiresAt: expires), now: t0)
            }
            _ = try await store.register(app: "shop", try Fixture.request("other", channels: ["small"]), now: t0)
            let now = t0.adding(milliseconds: 100)
            var cursor: Int64 = 0
            var seen: [String] = []
            while true {
                let page = try await store.members(app: "shop", channel: try Fixture.channel("big"), after: cursor, limit: 7, now: now)
                #expect(page.items.count <= 7)
                #expect(page.items.map(\.cursor) == page.items.map(\.cursor).sorted())
                seen += page.items.map(\.deviceId)
                guard let next = page.next else { break }
                cursor = next
            }
            #expect(seen.count == 20)
            #expect(Set(seen) == Set((0..<25).filter { $0 % 5 != 0 }.map { "d\($0)" }))
        }
    }

    @Test(arguments: StoreBackendKind.allCases)
    func storedKeysAreCreatedOnce(_ kind: StoreBackendKind) async throws {
        try await kind.withStore { store, _ in
            let keys = [APIKey(key: "c-1", role: .client), APIKey(key: "a-1", role: .admin)]
            let first = try await store.storeKeysIfAbsent(app: "demo", keys: keys, now: t0)
            #expect(first.created && first.keys == keys)
            let second = try await store.storeKeysIfAbsent(app: "demo", keys: [APIKey(key: "x", role: .client)], now: t0)
            #expect(!second.created)
            #expect(Set(second.keys.map(\.key)) == ["c-1", "a-1"])
            #expect(Set(try await store.storedKeys(app: "demo").map(\.key)) == ["c-1", "a-1"])
        }
    }

    @Test(arguments: StoreBackendKind.allCases)
    func concurrentRegistrationsAreAllKept(_ kind: StoreBackendKind) async throws {
        try await kind.withStore { store, _ in
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<300 {
                    group.addTask {
                        _ = try await store.register(
                            app: "shop", try Fixture.request("d\(index)", channels: ["c\(index % 7)", "all"]), now: t0)
                    }
                }
                try await group.waitForAll()
            }
            let counts = try await store.channels(app: "shop", now: t0)
            #expect(counts.first { $0.name.rawValue == "all" }?.registrations == 300)
            #expect(counts.filter { $0.name.rawValue != "all" }.map(\.registrations).reduce(0, +) == 300)
        }
    }

    /// Concurrent calls are written in shared batches; calls for the same device must still add up
    /// as if they had run one after another.
    @Test(arguments: StoreBackendKind.allCases)
    func concurrentCallsForOneDeviceAddUp(_ kind: StoreBackendKind) async throws {
        try await kind.withStore { store, _ in
            let receipts = try await withThrowingTaskGroup(of: RegistrationReceipt.self) { group in
                for index in 0..<100 {
                    group.addTask {
                        try await store.register(app: "shop", try Fixture.request("same", channels: ["c\(index)", "shared"]), now: t0)
                    }
                }
                return try await group.reduce(into: [RegistrationReceipt]()) { $0.append($1) }
            }
            #expect(Set(receipts.map(\.registrationId)).count == 1, "one device, one registration id")
            let sharedIds = Set(receipts.compactMap { $0.channelRegistrationIds[try! Fixture.channel("shared")] })
            #expect(sharedIds.count == 1, "one registration per (device, channel), whichever call created it")
            let device = try #require(try await store.device(app: "shop", deviceId: "same", now: t0))
            #expect(device.channels.count == 101)
        }
    }
}
