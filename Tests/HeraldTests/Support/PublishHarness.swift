import APNsMock
import FCMMock
import Foundation
import Herald
import HeraldAPNs
import HeraldCore
import HeraldDispatch
import HeraldFCM
import HeraldStore
import HeraldTestSupport
import HeraldWebPush
import HeraldWebhooks
import Hummingbird
import HummingbirdTesting
import Logging
import Testing
import WebPushMock

/// The whole server (routes, store on a SQLite file or a PostgreSQL database, dispatcher, APNs client) against the mock APNs
/// over TLS, with a manual clock that Herald, its provider tokens and the mock share.
enum PublishHarness {
    static let topic = FixtureFiles.topic
    static let publish = "/shop/k-server/messaging"
    static let register = "/shop/k-client/messaging/registrations"

    /// Fast retries and a short poll, so retry and scheduling tests take milliseconds.
    static let fastSettings = DispatcherConfiguration(pageSize: 50, maxOpenPages: 4, pollIntervalSeconds: 0.02, leaseSeconds: 5)
    static let fastRetries = ProviderRetryPolicies(
        apns: APNsRetryPolicy(
            maxAttempts: 5, baseDelay: .milliseconds(5), maxDelay: .milliseconds(40), tooManyRequestsDelay: .milliseconds(10)),
        // A Retry-After is still honoured, up to 2 s.
        fcm: FCMRetryPolicy(
            backoff: Backoff(maxAttempts: 5, baseDelay: .milliseconds(5), maxDelay: .seconds(2)), quotaExceededDelay: .milliseconds(10)),
        webPush: WebPushRetryPolicy(
            backoff: Backoff(maxAttempts: 5, baseDelay: .milliseconds(5), maxDelay: .seconds(2)), tooManyRequestsDelay: .milliseconds(10)))

    struct Harness: Sendable {
        let client: any TestClientProtocol
        let store: SQLRegistrationStore
        let messages: SQLMessageStore
        let outbox: SQLWebhookOutbox
        let clock: ManualClock
        let mock: APNsMock
        /// The mock FCM, when the harness gave the app an `fcm` block.
        let fcmMock: FCMMock?
        /// The mock Web Push service, when the harness gave the app a `webPush` block.
        let webPushMock: WebPushMock?
        /// The server's metrics (what `GET /metrics` shows).
        let exporter: MetricsExporter
    }

    static func apnsSettings(_ mock: APNsMock, keyID: String = "TESTKEY001") -> APNsAppConfiguration {
        APNsAppConfiguration(
            environment: .custom(url: mock.baseURL, caFile: FixtureFiles.caFile, manageURL: mock.manageBaseURL), topic: topic,
            authentication: .token(teamID: FixtureFiles.teamID, keyID: keyID, privateKeyFile: FixtureFiles.keyFile(keyID)),
            connections: 2, streamsPerConnection: 100)
    }

    /// Which database the harness's Herald runs on.
    enum Database: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case sqlite
        case postgres
        var testDescription: String { rawValue }

        /// SQLite always; PostgreSQL when a test server is configured (under CI it must be).
        static var available: [Database] {
            PostgresTestDatabase.serverURL != nil || PostgresTestDatabase.isCI ? allCases : [.sqlite]
        }
    }

    static func with(
        apns: Bool = true, keyID: String = "TESTKEY001", settings: DispatcherConfiguration = fastSettings, database: Database = .sqlite,
        webhook: WebhookTarget? = nil, fcm: Bool = false, fcmTokenLifetime: Int = 3599, webPush: Bool = false,
        setup: TestingSetup = .router,
        _ body: @escaping @Sendable (Harness) async throws -> Void
    ) async throws {
        let logger = Logger(label: "herald.tests")
        let clock = ManualClock(TestHerald.t0)
        var mockConfiguration = APNsMockConfiguration(
            transport: .tls(certificateChainFile: FixtureFiles.serverCertificate, privateKeyFile: FixtureFiles.serverKey),
            authentication: .token([
                try APNsMockSigningKey(
                    keyId: FixtureFiles.keyID, teamId: FixtureFiles.teamID,
                    p8File: FixtureFiles.keyFile())
            ]))
        mockConfiguration.topics = [topic]
        // Apple's channel management host for Live Activity broadcast channels, on a port of its own.
        mockConfiguration.managePort = 0
        mockConfiguration.now = { Double(clock.now.milliseconds) / 1000 }
        let mock = try await APNsMock.start(mockConfiguration)
        let scratch = try Scratch()
        defer { scratch.remove() }
        let fcmMock = fcm ? try await startFCMMock(clock: clock, tokenLifetime: fcmTokenLifetime) : nil
        let fcmSettings = try fcmMock.map { try fcmAppSettings($0, scratch: scratch) }
        let webPushMock = webPush ? try await startWebPushMock(clock: clock) : nil
        @Sendable func run(_ url: DatabaseURL) async throws {
            try await HeraldRuntime.withMigrated(url, logger: logger) { backend in
                var apps = TestHerald.apps
                if apns { apps[0].apns = apnsSettings(mock, keyID: keyID) }
                apps[0].fcm = fcmSettings
                if webPushMock != nil { apps[0].webPush = webPushSettings }
                apps[0].webhook = webhook
                let events = EventOutbox.forApps(apps)
                let exporter = MetricsExporter()
                let store = SQLRegistrationStore(backend: backend, metrics: exporter.metrics)
                // The test's manual clock decides leases on PostgreSQL too (not the server's).
                let pubsub = PubSubParts(backend: backend)
                let messages = SQLMessageStore(backend: backend, clock: .caller, events: events, feed: pubsub.signal)
                let outbox = SQLWebhookOutbox(backend: backend, clock: .caller)
                var configuration = HeraldConfiguration(http: .init(host: "127.0.0.1", port: 0), database: url, apps: apps)
                configuration.sweeper.intervalSeconds = 0
                configuration.dispatcher = settings
                configuration.retries = fastRetries
                configuration.webhooks = WebhookRetryPolicy(baseMilliseconds: 1_000, maxMilliseconds: 60_000)
                let app = HeraldServer.makeApplication(
                    configuration: configuration, store: store, messages: messages,
                    registry: SQLDeviceRegistry(backend: backend, events: events, metrics: exporter.metrics),
                    templates: SQLPushTemplateStore(backend: backend), pubsub: pubsub, apps: try AppDirectory(apps: apps), clock: clock,
                    outbox: outbox,
                    exporter: exporter, logger: logger)
                try await app.test(setup) { client in
                    try await body(
                        Harness(
                            client: client, store: store, messages: messages, outbox: outbox, clock: clock, mock: mock,
                            fcmMock: fcmMock, webPushMock: webPushMock, exporter: exporter))
                }
            }
        }
        do {
            switch database {
            case .sqlite: try await run(.sqliteFile(path: scratch.path("h.sqlite")))
            case .postgres: try await PostgresTestDatabase.with { url in try await run(url) }
            }
        } catch {
            try? await mock.shutdown()
            try? await fcmMock?.shutdown()
            try? await webPushMock?.shutdown()
            throw error
        }
        try? await mock.shutdown()
        try? await fcmMock?.shutdown()
        try? await webPushMock?.shutdown()
    }

    /// The app's `webPush` block for the mock: the TEST ONLY VAPID key, the mock's CA, and loopback
    /// endpoints allowed (the mock listens on 127.0.0.1).
    static let webPushSettings = WebPushAppConfiguration(
        privateKeyFile: FixtureFiles.path("fixtures/webpush/vapid-test.pem"), subject: "mailto:tests@herald.example",
        caFile: FixtureFiles.caFile, allowPrivateHosts: true, connections: 2)

    /// The mock Web Push service over TLS, on the test's clock (its VAPID `exp` checks).
    static func startWebPushMock(clock: ManualClock) async throws -> WebPushMock {
        var configuration = WebPushMockConfiguration(
            transport: .tls(certificateChainFile: FixtureFiles.serverCertificate, privateKeyFile: FixtureFiles.serverKey))
        configuration.threads = 1
        configuration.now = { Double(clock.now.milliseconds) / 1000 }
        return try await WebPushMock.start(configuration)
    }

    /// The mock FCM over TLS, knowing the fixture service account, on the test's clock.
    static func startFCMMock(clock: ManualClock, tokenLifetime: Int) async throws -> FCMMock {
        var configuration = FCMMockConfiguration(
            transport: .tls(certificateChainFile: FixtureFiles.serverCertificate, privateKeyFile: FixtureFiles.serverKey),
            serviceAccounts: [try FCMServiceAccount(keyFile: FixtureFiles.path("fixtures/fcm/service-account.json"))])
        configuration.accessTokenLifetime = tokenLifetime
        configuration.threads = 1
        configuration.now = { Double(clock.now.milliseconds) / 1000 }
        return try await FCMMock.start(configuration)
    }

    /// The app's `fcm` block for the mock: a copy of the fixture service account whose `token_uri` is the
    /// mock's token endpoint (`accountFile` another account's key, e.g. one the mock refuses).
    static func fcmAppSettings(
        _ mock: FCMMock, scratch: Scratch, accountFile: String = "fixtures/fcm/service-account.json"
    ) throws -> FCMAppConfiguration {
        let path = try mock.serviceAccountFile(
            copying: FixtureFiles.path(accountFile), to: scratch.path("service-account-\(UUID().uuidString.prefix(8)).json"))
        return FCMAppConfiguration(
            serviceAccountFile: path, url: mock.baseURL, caFile: FixtureFiles.caFile, connections: 2, streamsPerConnection: 100)
    }

    /// Distinct 64-character hex tokens.
    static func token(_ index: Int) -> String {
        let hex = String(index, radix: 16)
        return "ab" + String(repeating: "0", count: 62 - hex.count) + hex
    }
}

extension PublishHarness.Harness {
    /// Registers devices `range` (ids "dev-<i>", tokens `PublishHarness.token(i)`) into `channels` through the store.
    func registerDevices(
        _ range: Range<Int>, channels: [String] = ["news"], os: String = "IOS",
        expiration: Int64? = nil
    ) async throws {
        let list = channels.map { "\"\($0)\"" }.joined(separator: ",")
        let expiry = expiration.map { ", \"expiration\": \($0)" } ?? ""
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in range {
                group.addTask {
                    let body =
                        #"{"deviceToken": "\#(PublishHarness.token(index))", "deviceId": "dev-\#(index)", "os": "\#(os)", "channels": [\#(list)]\#(expiry)}"#
                    let request = try RegistrationRequest(json: try JSONValue.parse(Array(body.utf8)), now: clock.now)
                    _ = try await store.register(app: "shop", request, now: clock.now)
                }
            }
            try await group.waitForAll()
        }
    }

    /// Publishes `json` to `channel` and returns the message id.
    func publish(_ channel: String, _ json: String) async throws -> String {
        let answer = try await client.call(.post, PublishHarness.publish + "/" + channel, json: json)
        #expect(answer.status == .ok, "publish answered \(answer.status): \(answer.body)")
        #expect(answer.body["status"] == .string("scheduled"))
        guard case .string(let id)? = answer.body["messageId"] else {
            throw HarnessError("no messageId in \(answer.body)")
        }
        return id
    }

    func status(_ id: String) async throws -> JSONValue {
        try await client.call(.get, PublishHarness.publish + "/" + id).body
    }

    /// Polls the message until its status is `expected` (20 s at most) and returns the last answer.
    @discardableResult
    func waitFor(_ id: String, status expected: String, timeout: Duration = .seconds(20)) async throws -> JSONValue {
        try await waitFor(id, timeout: timeout, "status \(expected)") { $0["status"] == .string(expected) }
    }

    /// Waits until the mock has recorded `count` accepted notifications.
    func waitForMock(_ count: Int, timeout: Duration = .seconds(20)) async throws {
        let deadline = ContinuousClock.now + timeout
        while mock.stats().accepted < count {
            if ContinuousClock.now > deadline { throw HarnessError("the mock accepted \(mock.stats().accepted), not \(count)") }
            try await Task.sleep(for: .milliseconds(20))
        }
    }
}

struct HarnessError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

extension JSONValue {
    /// `deliveries.<name>` of a status answer.
    func delivery(_ name: String) -> Int64? {
        if case .integer(let value)? = self["deliveries"]?[name] { return value }
        return nil
    }

    /// One of `deliveries.byPlatform.<platform>`'s counts.
    func platform(_ platform: String, _ name: String) -> Int64? {
        if case .integer(let value)? = self["deliveries"]?["byPlatform"]?[platform]?[name] { return value }
        return nil
    }
}
