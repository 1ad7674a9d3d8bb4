import Foundation
import Herald
import HeraldCore
import HeraldStore
import Logging
import ServiceLifecycle

/// What the demo runs against: the mock APNs, the mock FCM and the mock Web Push service over TLS, and a
/// real Herald (the same `HeraldRuntime.serve` as `herald serve`) on a SQLite file in a temporary
/// directory, with one app that sends to all of them.
struct DemoStack: Sendable {
    static let appId = "demo"

    /// The mock APNs, mock FCM and mock Web Push service.
    let providers: DemoProviders
    let herald: URL
    let clientKey: String
    let serverKey: String
    let adminKey: String
    let database: DatabaseURL

    /// Starts everything with Herald's database in `directory` (created here), runs `body`, then stops
    /// Herald gracefully (as SIGTERM would) and the mocks, and removes the directory, whether `body`
    /// succeeded or not.
    static func with(
        directory: URL, fixtures: DemoFixtures, logger: Logger,
        _ body: @Sendable (DemoStack) async throws -> Void
    ) async throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let providers = try await DemoProviders.start(fixtures: fixtures, directory: directory)
        do {
            let clientKey = "client-\(RandomHex.make(bytes: 16))"
            let serverKey = "server-\(RandomHex.make(bytes: 16))"
            let adminKey = "admin-\(RandomHex.make(bytes: 16))"
            let database = DatabaseURL.sqliteFile(path: directory.appendingPathComponent("herald.sqlite").path)
            let delivery = providers.delivery
            var configuration = HeraldConfiguration(
                http: .init(host: "127.0.0.1", port: 0), database: database,
                apps: [
                    AppConfiguration(
                        id: appId,
                        keys: [
                            APIKey(key: clientKey, role: .client), APIKey(key: serverKey, role: .server),
                            APIKey(key: adminKey, role: .admin),
                        ],
                        apns: delivery.apns, fcm: delivery.fcm, webPush: delivery.webPush)
                ])
            configuration.sweeper.intervalSeconds = 0
            try await runHerald(configuration, logger: logger) { port in
                try await body(
                    DemoStack(
                        providers: providers, herald: URL(string: "http://127.0.0.1:\(port)")!, clientKey: clientKey,
                        serverKey: serverKey, adminKey: adminKey, database: database))
            }
        } catch {
            await providers.shutdown()
            throw error
        }
        await providers.shutdown()
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
