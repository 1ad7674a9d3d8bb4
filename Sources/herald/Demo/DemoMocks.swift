import Foundation
import Herald
import HeraldCore

/// The mock APNs, mock FCM and mock Web Push service that `herald serve` runs in its own process in demo
/// mode (no configuration file), so the demo app's messages are delivered, to them, with nothing set up.
/// They listen on loopback only, on the standalone mocks' ports when those are free (APNs 2197, control
/// 2198; FCM 2199, control 2200; Web Push 2299, control 2300) and on free ones otherwise, and keep the
/// newest `recordLimit` of what they received for their control API. Nothing reaches Apple, Google or a
/// browser's push service. A configuration file never starts them.
struct DemoMocks: Sendable {
    let providers: DemoProviders
    /// Holds the service-account copy that points at the mock FCM; removed by `shutdown`.
    let directory: URL
    var delivery: HeraldRuntime.DemoDelivery { providers.delivery }

    /// Notifications (FCM messages, pushes) each mock keeps for its control API; older ones are dropped, so a
    /// demo server that runs for days keeps a bounded amount.
    static let recordLimit = 1_000

    /// `avoiding`: ports Herald itself will listen on, which the mocks must leave free.
    static func start(fixtures: DemoFixtures, avoiding reserved: Set<Int> = []) async throws -> DemoMocks {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("herald-demo-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        do {
            let providers = try await DemoProviders.start(
                fixtures: fixtures, directory: directory, recording: recordLimit,
                ports: (apns: (2197, 2198), fcm: (2199, 2200), webPush: (2299, 2300)),
                reserved: reserved)
            return DemoMocks(providers: providers, directory: directory)
        } catch {
            try? FileManager.default.removeItem(at: directory)
            throw error
        }
    }

    func shutdown() async {
        await providers.shutdown()
        try? FileManager.default.removeItem(at: directory)
    }

    /// What the banner says of them: where each listens, where to see what it received, and a browser's
    /// subscription to register (the mock knows its keys, so it decrypts what Herald sends to it).
    var bannerLines: [String] {
        let width = PushProvider.allCases.map(\.displayName.count).max() ?? 0
        let mocks = PushProvider.allCases.map { provider in
            "  mock \(provider.displayName.padding(toLength: width, withPad: " ", startingAt: 0)) \(providers.url(provider))  "
                + "received: curl -s http://127.0.0.1:\(providers.controlPort(provider) ?? 0)\(DemoProviders.receivedPath(provider))"
        }
        return ["Publishing in demo mode goes to mock servers inside this process; nothing reaches Apple or Google:"] + mocks + [
            "  a browser's subscription at the mock Web Push (the deviceToken of an \"os\":\"WEB\" device): "
                + providers.webSubscription(id: "my-browser")
        ]
    }
}
