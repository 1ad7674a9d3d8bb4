import HeraldCore
import HeraldStore
import Testing

/// The admin's device listing, on every backend: each filter, paging by key, app isolation.
@Suite struct DeviceListingTests {
    let t0 = Fixture.t0

    func ids(_ registry: SQLDeviceRegistry, _ filter: DeviceFilter, app: String = "shop") async throws -> [String] {
        let page = try await registry.devices(
            app: app, filter: filter, after: nil, limit: 1000, scanLimit: 10_000, now: t0.adding(milliseconds: 50))
        #expect(page.nextCursor == nil)
        return page.devices.map(\.record.deviceId)
    }

    @Test(arguments: StoreBackendKind.allCases)
    func everyFilterSelectsExactlyItsDevices(_ kind: StoreBackendKind) async throws {
        try await kind.withStore { store, backend in
            let registry = SQLDeviceRegistry(backend: backend)
            func register(
                _ id: String, os: DeviceOS = .ios, channels: [String] = ["news"], expires: Int64? = nil, at: Int64 = 0,
                _ metadata: DeviceMetadata = DeviceMetadata()
            ) async throws {
                var request = try Fixture.request(
                    id, token: os == .android ? "tok-\(id)" : "ab", os: os, channels: channels,
                    expiresAt: expires.map { t0.adding(milliseconds: $0) })
                request.metadata = metadata
                _ = try await store.register(app: "shop", request, now: t0.adding(milliseconds: at))
            }
            try await register("a-phone", DeviceMetadata(installId: "INST-1", deviceName: "John’s iPhone", appVersion: "2.0"))
            try await register("b-droid", os: .android, channels: ["sports"], at: 10, DeviceMetadata(appVersion: "1.0"))
            try await register("c_50%", channels: ["news"], expires: 20, at: 20, DeviceMetadata(deviceName: "Lab 50%"))
            try await register("d-mac", os: .osx, channels: ["news", "sports"], at: 30)
            _ = try await registry.recordLaunch(
                app: "shop", deviceId: try DeviceID(validating: "e-new"), metadata: DeviceMetadata(), now: t0.adding(milliseconds: 40))
            _ = try await registry.setActive(app: "shop", deviceId: "d-mac", active: false, reason: "x", now: t0)
            _ = try await store.register(app: "blog", try Fixture.request("a-phone"), now: t0)

            #expect(
                try await ids(registry, DeviceFilter()) == ["a-phone", "b-droid", "c_50%", "d-mac", "e-new"], "key order, this app only")
            #expect(
                try await ids(registry, DeviceFilter(channel: try Fixture.channel("news"))) == ["a-phone", "d-mac"], "c's news expired")
            #expect(try await ids(registry, DeviceFilter(os: .android)) == ["b-droid"])
            #expect(try await ids(registry, DeviceFilter(active: false)) == ["d-mac"])
            #expect(try await ids(registry, DeviceFilter(active: true)).count == 4)
            #expect(try await ids(registry, DeviceFilter(appVersion: "2.0")) == ["a-phone"])
            #expect(try await ids(registry, DeviceFilter(seenSince: t0.adding(milliseconds: 20))) == ["c_50%", "d-mac", "e-new"])
            #expect(try await ids(registry, DeviceFilter(seenBefore: t0.adding(milliseconds: 20))) == ["a-phone", "b-droid"])
            #expect(try await ids(registry, DeviceFilter(query: "inst-1")) == ["a-phone"], "install id, any case")
            #expect(try await ids(registry, DeviceFilter(query: "JOHN")) == ["a-phone"], "device name, any case")
            #expect(try await ids(registry, DeviceFilter(query: "droid")) == ["b-droid"], "device id")
            #expect(try await ids(registry, DeviceFilter(query: "50%")) == ["c_50%"], "% is itself")
            #expect(try await ids(registry, DeviceFilter(query: "_")) == ["c_50%"], "_ is itself")
            #expect(try await ids(registry, DeviceFilter(channel: try Fixture.channel("sports"), os: .osx, active: false)) == ["d-mac"])
            #expect(try await ids(registry, DeviceFilter(), app: "blog") == ["a-phone"])
            #expect(try await ids(registry, DeviceFilter(), app: "nobody").isEmpty)
        }
    }

    @Test(arguments: StoreBackendKind.allCases)
    func pagesFollowTheKeyAndStayStableWhileDevicesArrive(_ kind: StoreBackendKind) async throws {
        try await kind.withStore { store, backend in
            let registry = SQLDeviceRegistry(backend: backend)
            for n in 0..<7 { _ = try await store.register(app: "shop", try Fixture.request("dev-\(n)"), now: t0) }
            func page(after cursor: Int64?) async throws -> DeviceListing {
                try await registry.devices(app: "shop", filter: DeviceFilter(), after: cursor, limit: 3, scanLimit: 10_000, now: t0)
            }
            let first = try await page(after: nil)
            #expect(first.devices.map(\.record.deviceId) == ["dev-0", "dev-1", "dev-2"])
            // A device registered between two pages comes after every existing key: no page repeats or skips one.
            _ = try await store.register(app: "shop", try Fixture.request("aaa-late"), now: t0)
            let second = try await page(after: first.nextCursor)
            #expect(second.devices.map(\.record.deviceId) == ["dev-3", "dev-4", "dev-5"])
            let third = try await page(after: second.nextCursor)
            #expect(third.devices.map(\.record.deviceId) == ["dev-6", "aaa-late"])
            #expect(third.nextCursor == nil, "the end")
        }
    }

    @Test(arguments: StoreBackendKind.allCases)
    func aPageLooksAtABoundedWindowAndFollowingTheCursorFindsEveryMatch(_ kind: StoreBackendKind) async throws {
        try await kind.withStore { store, backend in
            let registry = SQLDeviceRegistry(backend: backend)
            // 23 devices; every fifth an OSX one (dev-0, dev-5, … dev-20); another app's devices in between.
            for n in 0..<23 {
                _ = try await store.register(app: "shop", try Fixture.request("dev-\(n)", os: n % 5 == 0 ? .osx : .ios), now: t0)
                if n % 4 == 0 { _ = try await store.register(app: "blog", try Fixture.request("b-\(n)", os: .osx), now: t0) }
            }
            let filter = try DeviceFilter { $0 == "os" ? "OSX" : nil }
            var found: [[String]] = []
            var cursor: Int64?
            repeat {
                let page = try await registry.devices(app: "shop", filter: filter, after: cursor, limit: 2, scanLimit: 4, now: t0)
                found.append(page.devices.map(\.record.deviceId))
                #expect(page.devices.count <= 2)
                cursor = page.nextCursor
            } while cursor != nil && found.count < 50
            // Windows of 4 of shop's devices: 0-3, 4-7, 8-11, 12-15, 16-19, 20-22.
            #expect(found == [["dev-0"], ["dev-5"], ["dev-10"], ["dev-15"], [], ["dev-20"]])
            // Without a filter every device matches: the page is bounded by its limit alone.
            let all = try await registry.devices(app: "shop", filter: DeviceFilter(), after: nil, limit: 30, scanLimit: 4, now: t0)
            #expect(all.devices.count == 23 && all.nextCursor == nil)
        }
    }
}
