import APNsMock
import FCMMock
import Foundation
import Herald
import HeraldAPNs
import HeraldCore
import HeraldFCM
import HeraldStore
import Logging
import ServiceLifecycle

/// What the demo runs against: the mock APNs and the mock FCM over TLS, and a real Herald (the same
/// `HeraldRuntime.serve` as `herald serve`) on a SQLite file in a temporary directory, with one app that
/// sends to both mocks.
struct DemoStack: Sendable {
    static let appId = "demo"
    static let topic = "com.example.herald"

    let mock: APNsMock
    let fcm: FCMMock
    let herald: URL
    let clientKey: String
    let serverKey: String
    let database: DatabaseURL

    /// Starts everything with Herald's database in `directory` (created here), runs `body`, then stops
    /// Herald gracefully (as SIGTERM would) and the mock, and removes the directory, whether `body`
    /// succeeded or not.
    static func with(
        directory: URL, fixtures: DemoFixtures, logger: Logger,
        _ body: @Sendable (DemoStack) async throws -> Void
    ) async throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let mock = try await startMock(fixtures)
        let fcm: FCMMock
        do {
            fcm = try await startFCMMock(fixtures)
        } catch {
            try? await mock.shutdown()
            throw error
        }
        do {
            let clientKey = "client-\(RandomHex.make(bytes: 16))"
            let serverKey = "server-\(RandomHex.make(bytes: 16))"
            let database = DatabaseURL.sqliteFile(path: directory.appendingPathComponent("herald.sqlite").path)
            let delivery = try Self.delivery(mock: mock, fcm: fcm, fixtures: fixtures, directory: directory)
            var configuration = HeraldConfiguration(
                http: .init(host: "127.0.0.1", port: 0), database: database,
                apps: [
                    AppConfiguration(
                        id: appId, keys: [APIKey(key: clientKey, role: .client), APIKey(key: serverKey, role: .server)],
                        apns: delivery.apns, fcm: delivery.fcm)
                ])
            configuration.sweeper.intervalSeconds = 0
            try await runHerald(configuration, logger: logger) { port in
                try await body(
                    DemoStack(
                        mock: mock, fcm: fcm, herald: URL(string: "http://127.0.0.1:\(port)")!, clientKey: clientKey,
                        serverKey: serverKey, database: database))
            }
        } catch {
            try? await mock.shutdown()
            try? await fcm.shutdown()
            throw error
        }
        try await mock.shutdown()
        try await fcm.shutdown()
    }

    /// The demo app's `apns` and `fcm` settings for these mocks: the test key and team, the CA that signed
    /// the mocks' certificate, and a copy of the test service account (written into `directory`) whose
    /// token URL is the mock FCM's.
    static func delivery(mock: APNsMock, fcm: FCMMock, fixtures: DemoFixtures, directory: URL) throws -> HeraldRuntime.DemoDelivery {
        HeraldRuntime.DemoDelivery(
            apns: APNsAppConfiguration(
                environment: .custom(url: mock.baseURL, caFile: fixtures.certificateAuthority), topic: topic,
                authentication: .token(teamID: "TESTTEAM01", keyID: "TESTKEY001", privateKeyFile: fixtures.signingKey)),
            fcm: FCMAppConfiguration(
                serviceAccountFile: try fcm.serviceAccountFile(
                    copying: fixtures.serviceAccount, to: directory.appendingPathComponent("service-account.json").path),
                url: fcm.baseURL, caFile: fixtures.certificateAuthority, connections: 2))
    }

    /// The mock FCM over TLS, knowing the test service account. The tour keeps counts only (memory stays
    /// flat); `herald serve` in demo mode keeps the newest `recording` messages for its control API, and
    /// runs on one thread beside the server.
    static func startFCMMock(_ fixtures: DemoFixtures, recording: Int? = nil, port: Int = 0, controlPort: Int? = nil)
        async throws -> FCMMock
    {
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

    /// The mock APNs as the tests run it, checking the test key and the demo's topic; records as for FCM.
    static func startMock(_ fixtures: DemoFixtures, recording: Int? = nil, port: Int = 0, controlPort: Int? = nil)
        async throws -> APNsMock
    {
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

    /// Runs Herald as a service of a group of our own, so that shutting that group down gracefully reaches
    /// Herald's services the way SIGTERM does: the dispatcher checkpoints and gives its leases back.
    static func runHerald(
        _ configuration: HeraldConfiguration, logger: Logger,
        _ body: @Sendable (Int) async throws -> Void
    ) async throws {
        let (ports, announce) = AsyncStream.makeStream(of: Int.self)
        let group = ServiceGroup(
            configuration: .init(
                services: [
                    HeraldService(
                        configuration: configuration, logger: logger,
                        announce: announce)
                ], logger: logger))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask {
                defer { announce.finish() }
                try await group.run()
            }
            guard let port = await ports.first(where: { _ in true }) else {
                try await tasks.waitForAll()
                throw DemoError("Herald stopped before it listened")
            }
            do {
                try await body(port)
            } catch {
                await group.triggerGracefulShutdown()
                try? await tasks.waitForAll()
                throw error
            }
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
    }
}
