import APNsMock
import FCMMock
import Foundation
import Herald
import HeraldCore
import HeraldStore
import HeraldTestSupport
import Logging
import Testing
import WebPushMock

/// The built `herald` binary against the three mocks over TLS: a fan-out of a channel of iOS, Android
/// and web devices, killed with `kill -9` midway, resumes from its one checkpoint after a restart; every
/// device is served on its own service, and what is sent twice stays within the crash bound, across all.
@Suite(.serialized) struct MixedFanOutCrashTests {
    static let iosDevices = 1500
    static let androidDevices = 750
    static let webDevices = 750
    static let pageSize = 100
    static let maxOpenPages = 4

    static func androidToken(_ index: Int) -> String { "mixed-fcm-\(index)-" + String(repeating: "y", count: 40) }

    static func fcmMock(latency: Int) async throws -> FCMMock {
        var configuration = FCMMockConfiguration(
            transport: .tls(certificateChainFile: FixtureFiles.serverCertificate, privateKeyFile: FixtureFiles.serverKey),
            serviceAccounts: [try FCMServiceAccount(keyFile: FixtureFiles.path("fixtures/fcm/service-account.json"))])
        configuration.threads = 1
        let mock = try await FCMMock.start(configuration)
        var faults = FCMMockFaults()
        faults.latencyMilliseconds = latency
        mock.setFaults(faults)
        return mock
    }

    static func webPushMock(latency: Int) async throws -> WebPushMock {
        var configuration = WebPushMockConfiguration(
            transport: .tls(certificateChainFile: FixtureFiles.serverCertificate, privateKeyFile: FixtureFiles.serverKey))
        configuration.threads = 1
        let mock = try await WebPushMock.start(configuration)
        var faults = WebPushMockFaults()
        faults.latencyMilliseconds = latency
        mock.setFaults(faults)
        return mock
    }

    /// What device `index` is: two in four iOS, then one Android, one web, so each page holds every kind.
    static func kind(_ index: Int) -> DeviceOS { [DeviceOS.ios, .ios, .android, .web][index % 4] }

    /// Devices interleaved, so each page holds every kind; a configuration file whose app has an `apns`,
    /// an `fcm` and a `webPush` block, each pointing at its mock.
    static func prepare(
        _ scratch: Scratch, apns: APNsMock, fcm: FCMMock, web: WebPushMock
    ) async throws -> (config: String, database: String) {
        let database = "sqlite://" + scratch.path("herald.sqlite")
        let backend = try await HeraldRuntime.openMigrated(try DatabaseURL(parsing: database), logger: Logger(label: "herald.tests"))
        let store = SQLRegistrationStore(backend: backend)
        let total = iosDevices + androidDevices + webDevices
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<total {
                group.addTask {
                    let token: String =
                        switch kind(index) {
                        case .android: androidToken(index / 4)
                        case .web: web.subscription(id: "mixed-\(index / 4)")
                        default: PublishHarness.token(index)
                        }
                    let body = JSONValue.object([
                        "deviceToken": .string(token), "deviceId": .string("dev-\(index)"), "os": .string(kind(index).rawValue),
                        "channels": .array([.string("news")]),
                    ])
                    let now = SystemClock().now
                    let rules = DeviceToken.Rules(webPushHosts: .init(allowPrivateHosts: true))
                    _ = try await store.register(app: "shop", try RegistrationRequest(json: body, now: now, rules: rules), now: now)
                }
            }
            try await group.waitForAll()
        }
        try await backend.close()
        let accountFile = try fcm.serviceAccountFile(
            copying: FixtureFiles.path("fixtures/fcm/service-account.json"), to: scratch.path("service-account.json"))
        let config = try scratch.write(
            "herald.json",
            """
            {"sweeper": {"intervalSeconds": 0},
             "dispatcher": {"pageSize": \(pageSize), "maxOpenPages": \(maxOpenPages), "pollIntervalSeconds": 0.05},
             "apps": [{"id": "shop", "keys": [{"key": "k-server", "role": "server"}, {"key": "k-admin", "role": "admin"}],
                       "apns": {"environment": "custom", "url": "\(apns.baseURL)", "caFile": "\(FixtureFiles.caFile)",
                                "topic": "\(PublishHarness.topic)", "teamId": "TESTTEAM01", "keyId": "TESTKEY001",
                                "privateKeyFile": "\(FixtureFiles.keyFile())",
                                "connections": 1, "streamsPerConnection": 20},
                       "fcm": {"serviceAccountFile": "\(accountFile)", "url": "\(fcm.baseURL)", "caFile": "\(FixtureFiles.caFile)",
                               "connections": 1, "streamsPerConnection": 10},
                       "webPush": {"privateKeyFile": "\(FixtureFiles.path("fixtures/webpush/vapid-test.pem"))",
                                   "subject": "mailto:tests@herald.example", "caFile": "\(FixtureFiles.caFile)",
                                   "allowPrivateHosts": true, "connections": 1, "streamsPerConnection": 10}}]}
            """)
        return (config, database)
    }

    @Test func aMixedFanOutKilledMidwayResumesAndServesEveryDeviceOnItsService() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let apns = try await FanOutCrashTests.mock(latency: 20)
        defer { Task { try? await apns.shutdown() } }
        let fcm = try await Self.fcmMock(latency: 20)
        defer { Task { try? await fcm.shutdown() } }
        let web = try await Self.webPushMock(latency: 20)
        defer { Task { try? await web.shutdown() } }
        let files = try await Self.prepare(scratch, apns: apns, fcm: fcm, web: web)
        let total = Self.iosDevices + Self.androidDevices + Self.webDevices
        @Sendable func accepted() -> Int { apns.stats().accepted + fcm.stats().accepted + web.stats().accepted }
        let (server, base) = try await FanOutCrashTests.serve(files)
        let id = try await FanOutCrashTests.publish(
            base, #"{"message": "crash test", "headers": {"android-content-title": "Crash test"}}"#)
        let deadline = ContinuousClock.now + .seconds(60)
        while accepted() < total / 3 {
            if ContinuousClock.now > deadline { throw HeraldProcess.Failure("the mocks accepted too little") }
            try await Task.sleep(for: .milliseconds(5))
        }
        server.kill9()
        _ = try await server.waitForExit()
        #expect(server.process.terminationReason == .uncaughtSignal)
        let beforeRestart = accepted()
        #expect(beforeRestart < total, "the kill came after the fan-out had finished: nothing tested")
        #expect(
            fcm.stats().accepted > 0 && apns.stats().accepted > 0 && web.stats().accepted > 0, "every service was being sent to at the kill"
        )

        let (restarted, again) = try await FanOutCrashTests.serve(files)
        let status = try await FanOutCrashTests.waitUntilPublished(again, id)

        let iosTokens = apns.notifications().map(\.token)
        let expectedIOS = Set((0..<total).filter { Self.kind($0) == .ios }.map(PublishHarness.token))
        #expect(Set(iosTokens) == expectedIOS, "iOS devices never served: \(expectedIOS.subtracting(iosTokens).count)")
        let androidTokens = fcm.messages(token: nil).compactMap(\.token)
        let expectedAndroid = Set((0..<Self.androidDevices).map(Self.androidToken))
        #expect(
            Set(androidTokens) == expectedAndroid, "Android devices never served: \(expectedAndroid.subtracting(androidTokens).count)")
        let webSubscriptions = web.messages().map(\.subscriptionID)
        let expectedWeb = Set((0..<Self.webDevices).map { "mixed-\($0)" })
        #expect(Set(webSubscriptions) == expectedWeb, "browsers never served: \(expectedWeb.subtracting(webSubscriptions).count)")
        #expect(web.stats().decryptFailures == 0)
        // Re-sent are only the pages open at the kill, whatever their services: at most maxOpenPages × pageSize.
        let duplicates =
            (iosTokens.count - Set(iosTokens).count) + (androidTokens.count - Set(androidTokens).count)
            + (webSubscriptions.count - Set(webSubscriptions).count)
        #expect(duplicates <= Self.pageSize * Self.maxOpenPages, "\(duplicates) devices served twice")
        print("mixed kill -9 after \(beforeRestart) of \(total) accepted: \(duplicates) devices served twice after the restart")
        #expect(status.delivery("sent") == Int64(total), "counts are written with their page, so none is counted twice")
        #expect(status.delivery("pending") == 0)
        #expect(status.platform("ios", "sent") == Int64(Self.iosDevices))
        #expect(status.platform("android", "sent") == Int64(Self.androidDevices))
        #expect(status.platform("web", "sent") == Int64(Self.webDevices))
        // The delivery statistics are written with the same checkpoints: the pages re-sent after the kill
        // are counted once there too, per service.
        let statsURL = try #require(URL(string: again.absoluteString + "/shop/k-admin/admin/stats?step=hour"))
        let stats = try JSONValue.parse(Array(try await HTTP.send("GET", statsURL).body.utf8))
        #expect(stats["total"]?["sent"] == .integer(Int64(total)), "\(stats)")
        var byService: [String: Int64] = [:]
        if case .array(let points)? = stats["points"] {
            for point in points {
                if case .string(let provider)? = point["provider"], case .integer(let sent)? = point["sent"] {
                    byService[provider, default: 0] += sent
                }
            }
        }
        #expect(byService == ["apns": Int64(Self.iosDevices), "fcm": Int64(Self.androidDevices), "webPush": Int64(Self.webDevices)])
        restarted.process.terminate()
        #expect(try await restarted.waitForExit() == 0)
    }
}
