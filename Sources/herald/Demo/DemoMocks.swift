import APNsMock
import FCMMock
import Foundation
import Herald

/// The mock APNs and mock FCM that `herald serve` runs in its own process in demo mode (no configuration
/// file), so the demo app's messages are delivered, to them, with nothing set up. They listen on
/// loopback only, on the standalone mocks' ports when those are free (APNs 2197, control 2198; FCM 2199,
/// control 2200) and on free ones otherwise, and keep the newest `recordLimit` of what they received for
/// their control API. Nothing reaches Apple or Google. A configuration file never starts them.
struct DemoMocks: Sendable {
    let apns: APNsMock
    let fcm: FCMMock
    /// Holds the service-account copy that points at the mock FCM; removed by `shutdown`.
    let directory: URL
    let delivery: HeraldRuntime.DemoDelivery

    /// Notifications (and FCM messages) each mock keeps for its control API; older ones are dropped, so a
    /// demo server that runs for days keeps a bounded amount.
    static let recordLimit = 1_000

    /// `avoiding`: ports Herald itself will listen on, which the mocks must leave free.
    static func start(fixtures: DemoFixtures, avoiding reserved: Set<Int> = []) async throws -> DemoMocks {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("herald-demo-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        do {
            let apns = try await preferring(reserved) { port, control in
                try await DemoStack.startMock(fixtures, recording: recordLimit, port: port, controlPort: control)
            }(2197, 2198)
            do {
                let fcm = try await preferring(reserved) { port, control in
                    try await DemoStack.startFCMMock(fixtures, recording: recordLimit, port: port, controlPort: control)
                }(2199, 2200)
                do {
                    let delivery = try DemoStack.delivery(mock: apns, fcm: fcm, fixtures: fixtures, directory: directory)
                    return DemoMocks(apns: apns, fcm: fcm, directory: directory, delivery: delivery)
                } catch {
                    try? await fcm.shutdown()
                    throw error
                }
            } catch {
                try? await apns.shutdown()
                throw error
            }
        } catch {
            try? FileManager.default.removeItem(at: directory)
            throw error
        }
    }

    /// Starts a mock on the given ports, or on free ones when those are taken or reserved.
    private static func preferring<Mock>(_ reserved: Set<Int>, _ start: @escaping (Int, Int) async throws -> Mock) -> (Int, Int)
        async throws -> Mock
    {
        { port, control in
            guard reserved.isDisjoint(with: [port, control]) else { return try await start(0, 0) }
            do { return try await start(port, control) } catch { return try await start(0, 0) }
        }
    }

    func shutdown() async {
        try? await apns.shutdown()
        try? await fcm.shutdown()
        try? FileManager.default.removeItem(at: directory)
    }

    /// What the banner says of them.
    var bannerLines: [String] {
        [
            "Publishing in demo mode goes to mock servers inside this process; nothing reaches Apple or Google:",
            "  mock APNs \(apns.baseURL)  received: curl -s http://127.0.0.1:\(apns.controlPort ?? 0)/control/notifications",
            "  mock FCM  \(fcm.baseURL)  received: curl -s http://127.0.0.1:\(fcm.controlPort ?? 0)/control/messages",
        ]
    }
}
