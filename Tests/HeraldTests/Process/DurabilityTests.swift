import Foundation
import Herald
import HeraldCore
import HeraldStore
import HeraldTestSupport
import Logging
import Testing

/// A 200 answer means the registration is on disk: `kill -9` of the server loses none of them.
@Suite(.serialized) struct DurabilityTests {
    static let config = """
        {"sweeper": {"intervalSeconds": 0},
         "apps": [{"id": "shop", "keys": [{"key": "k-client", "role": "client"}]}]}
        """

    @Test func everyAcknowledgedRegistrationSurvivesKill9() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let database = "sqlite://" + scratch.path("herald.sqlite")
        let configFile = try scratch.write("herald.json", Self.config)
        let server = try HeraldProcess(["serve", "--config", configFile, "--port", "0", "--database", database])
        let base = try await server.waitUntilListening()
        let endpoint = base.appendingPathComponent("shop/k-client/messaging/registrations")

        // 16 clients register as fast as they can; the server is killed while requests are in flight.
        let acknowledged = Acknowledged()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for client in 0..<16 {
                group.addTask {
                    for n in 0..<10_000 {
                        let id = "c\(client)-\(n)"
                        let token = "abcd" + String(n, radix: 16)
                        let body =
                            "{\"deviceToken\": \"\(token.count % 2 == 0 ? token : token + "0")\", \"deviceId\": \"\(id)\", \"channels\": [\"news\", \"c\(client)\"]}"
                        guard let answer = try? await HTTP.send("POST", endpoint, json: body) else { return }
                        if answer.status == 200 { acknowledged.ids.withLock { $0.append(id) } } else { return }
                    }
                }
            }
            group.addTask {
                while acknowledged.ids.withLock({ $0.count }) < 400 { try await Task.sleep(for: .milliseconds(5)) }
                server.kill9()
            }
            try await group.waitForAll()
        }
        _ = try await server.waitForExit()
        #expect(server.process.terminationReason == .uncaughtSignal)

        let ids = acknowledged.ids.withLock { $0 }
        #expect(ids.count >= 400)
        let logger = Logger(label: "herald.tests")
        let backend = try await HeraldRuntime.openMigrated(try DatabaseURL(parsing: database), logger: logger)
        let store = SQLRegistrationStore(backend: backend)
        var missing: [String] = []
        for id in ids {
            let device = try await store.device(app: "shop", deviceId: id, now: SystemClock().now)
            if device?.channels.count != 2 { missing.append(id) }
        }
        #expect(missing.isEmpty, "acknowledged but lost after kill -9: \(missing.prefix(10))")
        try await backend.close()

        // And the same file serves again after the crash.
        let restarted = try HeraldProcess(["serve", "--config", configFile, "--port", "0", "--database", database])
        let again = try await restarted.waitUntilListening()
        let fetched = try await HTTP.send("GET", again.appendingPathComponent("shop/k-client/messaging/registrations/\(ids[0])"))
        #expect(fetched.status == 200)
        restarted.process.terminate()
        #expect(try await restarted.waitForExit() == 0, "SIGTERM is a clean shutdown")
    }
}

/// The ids the server answered 200 for, collected from many client tasks.
final class Acknowledged: Sendable {
    let ids = Locked<[String]>([])
}
