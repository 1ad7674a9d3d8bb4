import HeraldCore
import HeraldStore
import SQLKit
import Testing

/// Launches in the device registry, on every backend.
@Suite struct LaunchStoreTests {
    let t0 = Fixture.t0

    func id(_ text: String) throws -> DeviceID { try DeviceID(validating: text) }

    func count(_ backend: any SQLBackend, _ sql: SQLQueryString) async throws -> Int {
        try await backend.read { db in try await db.raw(sql).first()?.decode(column: "n", as: Int.self) ?? -1 }
    }

    @Test(arguments: StoreBackendKind.allCases)
    func theFirstLaunchCreatesTheDeviceAndLaterOnesCount(_ kind: StoreBackendKind) async throws {
        try await kind.withStore { store, backend in
            let registry = SQLDeviceRegistry(backend: backend)
            let first = try await registry.recordLaunch(
                app: "shop", deviceId: try id("d1"), metadata: DeviceMetadata(installId: "i-1", appVersion: "1.0"), now: t0)
            #expect(first == LaunchRecord(allowed: true, reason: nil, launchCount: 1, firstLaunchAt: t0, lastLaunchAt: t0))
            // Known to the registry, but not a registration: no token, no channel, no push target.
            #expect(try await store.device(app: "shop", deviceId: "d1", now: t0) == nil)
            #expect(try await store.channels(app: "shop", now: t0).isEmpty)

            let later = t0.adding(milliseconds: 60_000)
            let second = try await registry.recordLaunch(
                app: "shop", deviceId: try id("d1"), metadata: DeviceMetadata(appVersion: "1.1"), now: later)
            #expect(second == LaunchRecord(allowed: true, reason: nil, launchCount: 2, firstLaunchAt: t0, lastLaunchAt: later))

            // Registering later gives it a token and channels; the launch metadata stays.
            _ = try await store.register(app: "shop", try Fixture.request("d1", channels: ["news"]), now: later)
            let device = try #require(try await store.device(app: "shop", deviceId: "d1", now: later))
            #expect(device.deviceToken == "aabbccdd" && device.channels.map(\.rawValue) == ["news"])
            #expect(device.metadata.installId == "i-1" && device.metadata.appVersion == "1.1")
            #expect(
                try await registry.recordLaunch(app: "shop", deviceId: try id("d1"), metadata: DeviceMetadata(), now: later).launchCount
                    == 3)

            // Another app's device of the same id is another device.
            #expect(
                try await registry.recordLaunch(app: "blog", deviceId: try id("d1"), metadata: DeviceMetadata(), now: later).launchCount
                    == 1)
        }
    }

    /// Only an admin's switch refuses a launch; APNs refusing the token does not stop the app.
    @Test(arguments: StoreBackendKind.allCases)
    func anAdminDeactivationRefusesLaunchesAndSurvivesANewToken(_ kind: StoreBackendKind) async throws {
        try await kind.withStore { store, backend in
            let registry = SQLDeviceRegistry(backend: backend)
            _ = try await store.register(app: "shop", try Fixture.request("off"), now: t0)
            _ = try await store.register(app: "shop", try Fixture.request("apns"), now: t0)
            try await backend.write { db in
                try await db.raw(
                    "UPDATE devices SET is_active = \(bind: false), deactivated_by = 'admin', inactive_reason = 'chargeback fraud' WHERE device_id = 'off'"
                ).run()
                try await db.raw("UPDATE devices SET is_active = \(bind: false), deactivated_by = 'apns' WHERE device_id = 'apns'").run()
            }
            let refused = try await registry.recordLaunch(app: "shop", deviceId: try id("off"), metadata: DeviceMetadata(), now: t0)
            #expect(!refused.allowed)
            #expect(refused.reason == "chargeback fraud")
            #expect(try await registry.recordLaunch(app: "shop", deviceId: try id("apns"), metadata: DeviceMetadata(), now: t0).allowed)

            // A new token lifts APNs's deactivation, not the admin's.
            _ = try await store.register(app: "shop", try Fixture.request("off", token: "0011"), now: t0)
            _ = try await store.register(app: "shop", try Fixture.request("apns", token: "0022"), now: t0)
            #expect(try await store.device(app: "shop", deviceId: "off", now: t0)?.isActive == false)
            #expect(try await store.device(app: "shop", deviceId: "apns", now: t0)?.isActive == true)
            #expect(!(try await registry.recordLaunch(app: "shop", deviceId: try id("off"), metadata: DeviceMetadata(), now: t0).allowed))
        }
    }

    @Test(arguments: StoreBackendKind.allCases)
    func launchHistoryKeepsTheNewestUpToItsLimit(_ kind: StoreBackendKind) async throws {
        try await kind.withStore { _, backend in
            let registry = SQLDeviceRegistry(backend: backend, launchHistoryLimit: 3)
            for n in 0..<5 {
                _ = try await registry.recordLaunch(
                    app: "shop", deviceId: try id("d1"), metadata: DeviceMetadata(appVersion: "1.\(n)"),
                    now: t0.adding(milliseconds: Int64(n)))
            }
            _ = try await registry.recordLaunch(app: "shop", deviceId: try id("d2"), metadata: DeviceMetadata(), now: t0)
            #expect(
                try await count(
                    backend, "SELECT COUNT(*) AS n FROM launches l JOIN devices d ON d.id = l.device_id WHERE d.device_id = 'd1'") == 3)
            #expect(
                try await count(
                    backend,
                    "SELECT MIN(launched_at) - \(bind: t0.milliseconds) AS n FROM launches l JOIN devices d ON d.id = l.device_id WHERE d.device_id = 'd1'"
                ) == 2)
            #expect(
                try await count(
                    backend, "SELECT COUNT(*) AS n FROM launches l JOIN devices d ON d.id = l.device_id WHERE d.device_id = 'd2'") == 1)
            #expect(
                try await count(backend, "SELECT launch_count AS n FROM devices WHERE device_id = 'd1'") == 5, "the count is not capped")
        }
    }

    @Test(arguments: StoreBackendKind.allCases)
    func concurrentLaunchesAreBatchedAndCountedAsIfOneAfterAnother(_ kind: StoreBackendKind) async throws {
        try await kind.withStore { _, backend in
            let registry = SQLDeviceRegistry(backend: backend, launchHistoryLimit: 10)
            // 60 launches of one device and one launch each of 40 others, all at once (batches form).
            let answers = try await withThrowingTaskGroup(of: (String, Int64).self) { group in
                for n in 0..<100 {
                    let device = n < 60 ? "busy" : "d\(n)"
                    group.addTask {
                        let record = try await registry.recordLaunch(
                            app: "shop", deviceId: try DeviceID(validating: device), metadata: DeviceMetadata(appVersion: "1.\(n)"),
                            now: self.t0.adding(milliseconds: Int64(n)))
                        return (device, record.launchCount)
                    }
                }
                var answers: [(String, Int64)] = []
                for try await answer in group { answers.append(answer) }
                return answers
            }
            #expect(answers.filter { $0.0 == "busy" }.map(\.1).sorted() == Array(1...60), "each launch its own count")
            #expect(answers.filter { $0.0 != "busy" }.allSatisfy { $0.1 == 1 })
            #expect(try await count(backend, "SELECT launch_count AS n FROM devices WHERE device_id = 'busy'") == 60)
            #expect(
                try await count(
                    backend, "SELECT COUNT(*) AS n FROM launches l JOIN devices d ON d.id = l.device_id WHERE d.device_id = 'busy'") == 10,
                "capped")
            #expect(try await count(backend, "SELECT COUNT(*) AS n FROM launches") == 10 + 40)
        }
    }
}
