import APNsMock
import FCMMock
import Foundation
import Herald
import HeraldAPNs
import HeraldCore
import HeraldFCM
import HeraldWebPush
import WebPushMock

/// The demo's stand-ins for Apple, Google and the browsers' push services: the mock APNs, the mock FCM
/// and the mock Web Push service (fixtures/), started in this process over TLS with the TEST ONLY
/// credentials. The mocks are in the product binary on purpose, for demo mode, and this is the one file
/// of it that imports them: the demo tour and `herald serve` in demo mode see only this type (the
/// provider settings to give the demo app, the browsers' subscriptions, the scripting and the counts
/// the tour checks). A new push service adds its mock here.
struct DemoProviders: Sendable {
    private let apns: APNsMock
    private let fcm: FCMMock
    private let webPush: WebPushMock
    /// The demo app's provider blocks, pointing at the mocks.
    let delivery: HeraldRuntime.DemoDelivery

    /// The demo app's APNs topic, which the mock APNs checks.
    static let topic = "com.example.herald"
    /// The demo app's VAPID subject, which the mock Web Push service sees in every push.
    static let vapidSubject = "mailto:demo@herald.example"

    /// Ports to try first, per mock: the service's and its control port's.
    typealias Ports = (apns: (Int, Int), fcm: (Int, Int), webPush: (Int, Int))

    /// Starts the mocks; `directory` receives the service-account copy that points at the mock FCM.
    /// `recording`: notifications each keeps for its control API (nil: counts only, memory stays flat,
    /// for the tour). `ports`: the ports to try first, each mock falling back to free ones when its
    /// pair is taken or in `reserved`.
    static func start(
        fixtures: DemoFixtures, directory: URL, recording: Int? = nil, ports: Ports? = nil, reserved: Set<Int> = []
    ) async throws -> DemoProviders {
        // Whatever started is stopped again if a later step fails.
        var stops: [@Sendable () async -> Void] = []
        do {
            let apns = try await preferring(ports?.apns, reserved) { port, control in
                try await startAPNs(fixtures, recording: recording, port: port, controlPort: control)
            }
            stops.append { try? await apns.shutdown() }
            let fcm = try await preferring(ports?.fcm, reserved) { port, control in
                try await startFCM(fixtures, recording: recording, port: port, controlPort: control)
            }
            stops.append { try? await fcm.shutdown() }
            let webPush = try await preferring(ports?.webPush, reserved) { port, control in
                try await startWebPush(fixtures, recording: recording, port: port, controlPort: control)
            }
            stops.append { try? await webPush.shutdown() }
            let delivery = HeraldRuntime.DemoDelivery(
                apns: APNsAppConfiguration(
                    environment: .custom(url: apns.baseURL, caFile: fixtures.certificateAuthority, manageURL: apns.manageBaseURL),
                    topic: topic,
                    authentication: .token(teamID: "TESTTEAM01", keyID: "TESTKEY001", privateKeyFile: fixtures.signingKey)),
                fcm: FCMAppConfiguration(
                    serviceAccountFile: try fcm.serviceAccountFile(
                        copying: fixtures.serviceAccount, to: directory.appendingPathComponent("service-account.json").path),
                    url: fcm.baseURL, caFile: fixtures.certificateAuthority, connections: 2),
                webPush: WebPushAppConfiguration(
                    privateKeyFile: fixtures.vapidKey, subject: vapidSubject, caFile: fixtures.certificateAuthority,
                    allowPrivateHosts: true, connections: 2))
            return DemoProviders(apns: apns, fcm: fcm, webPush: webPush, delivery: delivery)
        } catch {
            for stop in stops.reversed() { await stop() }
            throw error
        }
    }

    func shutdown() async {
        try? await apns.shutdown()
        try? await fcm.shutdown()
        try? await webPush.shutdown()
    }

    /// Where the mock of `provider` listens (`https://localhost:PORT`).
    func url(_ provider: PushProvider) -> String {
        switch provider {
        case .apns: apns.baseURL
        case .fcm: fcm.baseURL
        case .webPush: webPush.baseURL
        }
    }

    /// The control port of the mock of `provider`, when it has one (demo mode's mocks do).
    func controlPort(_ provider: PushProvider) -> Int? {
        switch provider {
        case .apns: apns.controlPort
        case .fcm: fcm.controlPort
        case .webPush: webPush.controlPort
        }
    }

    /// The control route that lists what the mock of `provider` received.
    static func receivedPath(_ provider: PushProvider) -> String {
        switch provider {
        case .apns: "/control/notifications"
        case .fcm, .webPush: "/control/messages"
        }
    }

    /// The JSON text a browser's `JSON.stringify(subscription)` gives for a subscription `id` at the
    /// mock Web Push service (its endpoint on 127.0.0.1, its keys derived from `id`, so the mock can
    /// decrypt every push to it): what a WEB device registers as its token.
    func webSubscription(id: String) -> String {
        webPush.subscription(id: id)
    }

    /// Has the service that serves `os` answer that `token` is gone: APNs with 410 Unregistered dated
    /// `since` (epoch ms), FCM with 404 UNREGISTERED, Web Push with 410 Gone (the subscription's id is the
    /// last segment of its endpoint, as ``webSubscription(id:)`` made it).
    func scriptGone(token: String, os: DeviceOS, since: Int64) {
        switch PushProvider.serving(os) {
        case .fcm: fcm.script(token: token, .reject(.unregistered))
        case .apns: apns.script(token: token, .unregistered(timestamp: since))
        case .webPush:
            let subscription = try? WebPushSubscription(parsing: token, hosts: .init(allowPrivateHosts: true))
            guard let id = subscription?.endpoint.split(separator: "/").last else { return }
            webPush.script(subscription: String(id), .reject(status: 410, retryAfter: nil))
        case nil: break
        }
    }

    /// What a mock saw, in the terms the tour checks Herald's counts against.
    struct Seen {
        var requests: Int
        var accepted: Int
        /// Answered "token gone" (APNs 410, FCM UNREGISTERED, Web Push 410).
        var gone: Int
        /// Connections Herald opened to it (0 for FCM, which does not count them).
        var connectionsOpened: Int
        /// Access tokens fetched (FCM's OAuth2; 0 for APNs and Web Push, which sign their own).
        var tokenRequests: Int
    }

    func seen(_ provider: PushProvider) -> Seen {
        switch provider {
        case .apns:
            let stats = apns.stats()
            return Seen(
                requests: stats.requests, accepted: stats.accepted, gone: stats.byStatus["410"] ?? 0,
                connectionsOpened: stats.connectionsOpened, tokenRequests: 0)
        case .fcm:
            let stats = fcm.stats()
            return Seen(
                requests: stats.sends, accepted: stats.accepted, gone: stats.byErrorCode["UNREGISTERED"] ?? 0,
                connectionsOpened: 0, tokenRequests: stats.tokenRequests)
        case .webPush:
            let stats = webPush.stats()
            return Seen(
                requests: stats.pushes, accepted: stats.accepted, gone: stats.byStatus["410"] ?? 0,
                connectionsOpened: stats.connections.opened, tokenRequests: 0)
        }
    }

    /// What the mock APNs saw of Live Activities, in the terms the tour checks.
    struct LiveActivitiesSeen {
        /// Each notification accepted for a device token: the token, its `aps.event` and `aps.input-push-channel`.
        var tokenEvents: [(token: String, event: String?, inputPushChannel: String?)]
        /// Each broadcast accepted: its `aps.event` and channel id.
        var broadcasts: [(event: String?, channel: String)]
        /// What a device would have dropped, one line per problem.
        var problems: [String]

        /// What was seen after `earlier`.
        func since(_ earlier: LiveActivitiesSeen) -> LiveActivitiesSeen {
            LiveActivitiesSeen(
                tokenEvents: Array(tokenEvents.dropFirst(earlier.tokenEvents.count)),
                broadcasts: Array(broadcasts.dropFirst(earlier.broadcasts.count)),
                problems: Array(problems.dropFirst(earlier.problems.count)))
        }
    }

    func liveActivitiesSeen() -> LiveActivitiesSeen {
        func aps(_ payload: String) -> [String: Any] {
            let object = try? JSONSerialization.jsonObject(with: Data(payload.utf8)) as? [String: Any]
            return object?["aps"] as? [String: Any] ?? [:]
        }
        let checks = apns.liveActivityChecks()
        let tokens = checks.filter { $0.route == .token }.map { check in
            let aps = aps(check.payload)
            return (token: check.target, event: aps["event"] as? String, inputPushChannel: aps["input-push-channel"] as? String)
        }
        return LiveActivitiesSeen(
            tokenEvents: tokens,
            broadcasts: apns.broadcasts().map { (event: aps($0.payload)["event"] as? String, channel: $0.channelID) },
            problems: checks.flatMap { check in check.problems.map { "\(check.event ?? "no event"): \($0)" } })
    }

    /// Starts a mock on `preferred` ports, or on free ones when those are taken or reserved.
    private static func preferring<Mock>(
        _ preferred: (Int, Int)?, _ reserved: Set<Int>, _ start: (Int, Int?) async throws -> Mock
    ) async throws -> Mock {
        guard let (port, control) = preferred, reserved.isDisjoint(with: [port, control]) else {
            return try await start(0, preferred == nil ? nil : 0)
        }
        do { return try await start(port, control) } catch { return try await start(0, 0) }
    }

    /// The mock APNs as the tests run it, checking the test key and the demo's topic.
    private static func startAPNs(_ fixtures: DemoFixtures, recording: Int?, port: Int, controlPort: Int?) async throws -> APNsMock {
        var configuration = APNsMockConfiguration(
            transport: .tls(certificateChainFile: fixtures.serverCertificate, privateKeyFile: fixtures.serverKey),
            authentication: .token([try APNsMockSigningKey(keyId: "TESTKEY001", teamId: "TESTTEAM01", p8File: fixtures.signingKey)]))
        configuration.topics = [topic]
        configuration.recordNotifications = recording != nil
        configuration.recordLimit = recording
        if recording != nil { configuration.threads = 1 }
        configuration.port = port
        configuration.controlPort = controlPort
        // Apple's channel management host for Live Activity broadcast channels, on a free port.
        configuration.managePort = 0
        return try await APNsMock.start(configuration)
    }

    /// The mock FCM, knowing the test service account.
    private static func startFCM(_ fixtures: DemoFixtures, recording: Int?, port: Int, controlPort: Int?) async throws -> FCMMock {
        var configuration = FCMMockConfiguration(
            transport: .tls(certificateChainFile: fixtures.serverCertificate, privateKeyFile: fixtures.serverKey),
            serviceAccounts: [try FCMServiceAccount(keyFile: fixtures.serviceAccount)])
        configuration.recordMessages = recording != nil
        configuration.recordLimit = recording
        if recording != nil { configuration.threads = 1 }
        configuration.port = port
        configuration.controlPort = controlPort
        return try await FCMMock.start(configuration)
    }

    /// The mock Web Push service, taking only the test VAPID key's pushes (as a real push service takes
    /// only the key a subscription was made with) and decrypting every one.
    private static func startWebPush(
        _ fixtures: DemoFixtures, recording: Int?, port: Int, controlPort: Int?
    ) async throws -> WebPushMock {
        var configuration = WebPushMockConfiguration(
            transport: .tls(certificateChainFile: fixtures.serverCertificate, privateKeyFile: fixtures.serverKey))
        configuration.requiredPublicKey = try VAPIDKey.applicationServerKey(pemFile: fixtures.vapidKey)
        configuration.recordMessages = recording != nil
        configuration.recordLimit = recording
        if recording != nil { configuration.threads = 1 }
        configuration.port = port
        configuration.controlPort = controlPort
        return try await WebPushMock.start(configuration)
    }
}
