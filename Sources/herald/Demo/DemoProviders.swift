import APNsMock
import FCMMock
import Foundation
import Herald
import HeraldAPNs
import HeraldCore
import HeraldFCM

/// The demo's stand-ins for Apple and Google: the mock APNs and the mock FCM (fixtures/), started in this
/// process over TLS with the TEST ONLY credentials. The mocks are in the product binary on purpose, for
/// demo mode, and this is the one file of it that imports them: the demo tour and `herald serve` in demo
/// mode see only this type (the provider settings to give the demo app, the scripting and the counts
/// the tour checks). A new push service adds its mock here.
struct DemoProviders: Sendable {
    private let apns: APNsMock
    private let fcm: FCMMock
    /// The demo app's provider blocks, pointing at the mocks.
    let delivery: HeraldRuntime.DemoDelivery

    /// The demo app's APNs topic, which the mock APNs checks.
    static let topic = "com.example.herald"

    /// Starts both mocks; `directory` receives the service-account copy that points at the mock FCM.
    /// `recording`: notifications each keeps for its control API (nil: counts only, memory stays flat,
    /// for the tour). `ports`: the ports to try first, each mock falling back to free ones when its
    /// pair is taken or in `reserved`.
    static func start(
        fixtures: DemoFixtures, directory: URL, recording: Int? = nil,
        ports: (apns: (Int, Int), fcm: (Int, Int))? = nil, reserved: Set<Int> = []
    ) async throws -> DemoProviders {
        let apns = try await preferring(ports?.apns, reserved) { port, control in
            try await startAPNs(fixtures, recording: recording, port: port, controlPort: control)
        }
        do {
            let fcm = try await preferring(ports?.fcm, reserved) { port, control in
                try await startFCM(fixtures, recording: recording, port: port, controlPort: control)
            }
            do {
                let delivery = HeraldRuntime.DemoDelivery(
                    apns: APNsAppConfiguration(
                        environment: .custom(url: apns.baseURL, caFile: fixtures.certificateAuthority), topic: topic,
                        authentication: .token(teamID: "TESTTEAM01", keyID: "TESTKEY001", privateKeyFile: fixtures.signingKey)),
                    fcm: FCMAppConfiguration(
                        serviceAccountFile: try fcm.serviceAccountFile(
                            copying: fixtures.serviceAccount, to: directory.appendingPathComponent("service-account.json").path),
                        url: fcm.baseURL, caFile: fixtures.certificateAuthority, connections: 2))
                return DemoProviders(apns: apns, fcm: fcm, delivery: delivery)
            } catch {
                try? await fcm.shutdown()
                throw error
            }
        } catch {
            try? await apns.shutdown()
            throw error
        }
    }

    func shutdown() async {
        try? await apns.shutdown()
        try? await fcm.shutdown()
    }

    var apnsURL: String { apns.baseURL }
    var fcmURL: String { fcm.baseURL }
    var apnsControlPort: Int? { apns.controlPort }
    var fcmControlPort: Int? { fcm.controlPort }

    /// Has the service that serves `os` answer that `token` is gone: APNs with 410 Unregistered dated
    /// `since` (epoch ms), FCM with 404 UNREGISTERED.
    func scriptGone(token: String, os: DeviceOS, since: Int64) {
        switch PushProvider.serving(os) {
        case .fcm: fcm.script(token: token, .reject(.unregistered))
        case .apns: apns.script(token: token, .unregistered(timestamp: since))
        case .webPush, nil: break
        }
    }

    /// What a mock saw, in the terms the tour checks Herald's counts against.
    struct Seen {
        var requests: Int
        var accepted: Int
        /// Answered "token gone" (APNs 410, FCM UNREGISTERED).
        var gone: Int
        var connectionsOpened: Int
        /// Access tokens fetched (FCM's OAuth2; 0 for APNs, which signs its own).
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
            return Seen(requests: 0, accepted: 0, gone: 0, connectionsOpened: 0, tokenRequests: 0)
        }
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
}
