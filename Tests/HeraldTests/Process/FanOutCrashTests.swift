import APNsMock
import Foundation
import Herald
import HeraldCore
import HeraldStore
import HeraldTestSupport
import Logging
import SQLKit
import Testing

/// The built `herald` binary against the mock APNs over TLS: a fan-out survives `kill -9` and SIGTERM,
/// and a scheduled message survives a restart. The mock runs in the test process; only Herald dies.
@Suite(.serialized) struct FanOutCrashTests {
    static let devices = 3000
    static let pageSize = 100
    static let maxOpenPages = 4

    /// A mock that answers every request after `latency` ms, so a fan-out takes a few seconds.
    static func mock(latency: Int) async throws -> APNsMock {
        var configuration = APNsMockConfiguration(
            transport: .tls(
                certificateChainFile: FixtureFiles.serverCertificate,
                privateKeyFile: FixtureFiles.serverKey),
            authentication: .token([
                try APNsMockSigningKey(
                    keyId: "TESTKEY001", teamId: "TESTTEAM01",
                    p8File: FixtureFiles.keyFile())
            ]))
        configuration.topics = [PublishHarness.topic]
        let mock = try await APNsMock.start(configuration)
        var faults = APNsMockFaults()
        faults.latencyMilliseconds = latency
        mock.setFaults(faults)
        return mock
    }

    /// A database with `devices` registered in channel "news", and a configuration file pointing at `mock`.
    static func prepare(_ scratch: Scratch, mock: APNsMock) async throws -> (config: String, database: String) {
        let database = "sqlite://" + scratch.path("herald.sqlite")
        let backend = try await HeraldRuntime.openMigrated(try DatabaseURL(parsing: database), logger: Logger(label: "herald.tests"))
        let store = SQLRegistrationStore(backend: backend)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<devices {
                group.addTask {
                    let body = #"{"deviceToken": "\#(PublishHarness.token(index))", "deviceId": "dev-\#(index)", "channels": ["news"]}"#
                    let now = SystemClock().now
                    _ = try await store.register(
                        app: "shop", try RegistrationRequest(json: try JSONValue.parse(Array(body.utf8)), now: now), now: now)
                }
            }
            try await group.waitForAll()
        }
        try await backend.close()
        let config = try scratch.write(
            "herald.json",
            """
            {"sweeper": {"intervalSeconds": 0},
             "dispatcher": {"pageSize": \(pageSize), "maxOpenPages": \(maxOpenPages), "pollIntervalSeconds": 0.05},
             "apps": [{"id": "shop", "keys": [{"key": "k-server", "role": "server"}],
                       "apns": {"environment": "custom", "url": "\(mock.baseURL)", "caFile": "\(FixtureFiles.caFile)",
                                "topic": "\(PublishHarness.topic)", "teamId": "TESTTEAM01", "keyId": "TESTKEY001",
                                "privateKeyFile": "\(FixtureFiles.keyFile())",
                                "connections": 1, "streamsPerConnection": 20}}]}
            """)
        return (config, database)
    }

    static func serve(_ files: (config: String, database: String)) async throws -> (HeraldProcess, URL) {
        let server = try HeraldProcess(["serve", "--config", files.config, "--port", "0", "--database", files.database])
        return (server, try await server.waitUntilListening())
    }

    static func publish(_ base: URL, _ json: String) async throws -> String {
        let answer = try await HTTP.send("POST", base.appendingPathComponent("shop/k-server/messaging/news"), json: json)
        #expect(answer.status == 200, "\(answer.body)")
        guard case .string(let id)? = try JSONValue.parse(Array(answer.body.utf8))["messageId"] else {
            throw HeraldProcess.Failure("no messageId in \(answer.body)")
        }
        return id
    }

    static func waitUntilPublished(_ base: URL, _ id: String, timeout: Duration = .seconds(60)) async throws -> JSONValue {
        let deadline = ContinuousClock.now + timeout
        while true {
            let answer = try await HTTP.send("GET", base.appendingPathComponent("shop/k-server/messaging/\(id)"))
            let body = try JSONValue.parse(Array(answer.body.utf8))
            if body["status"] == .string("published") { return body }
            if ContinuousClock.now > deadline { throw HeraldProcess.Failure("message still \(body)") }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    static func waitForAccepted(_ mock: APNsMock, atLeast count: Int) async throws {
        let deadline = ContinuousClock.now + .seconds(60)
        while mock.stats().accepted < count {
            if ContinuousClock.now > deadline { throw HeraldProcess.Failure("the mock accepted only \(mock.stats().accepted)") }
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    /// Every device got the message at least once; returns how many got it more than once.
    static func checkEveryDeviceServed(_ mock: APNsMock) -> Int {
        let tokens = mock.notifications().map(\.token)
        let expected = Set((0..<devices).map(PublishHarness.token))
        #expect(Set(tokens) == expected, "devices never served: \(expected.subtracting(tokens).count)")
        return tokens.count - Set(tokens).count
    }

    @Test func aFanOutKilledMidwayResumesAndServesEveryDevice() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let mock = try await Self.mock(latency: 20)
        defer { Task { try? await mock.shutdown() } }
        let files = try await Self.prepare(scratch, mock: mock)
        let (server, base) = try await Self.serve(files)
        let id = try await Self.publish(base, #"{"message": "crash test"}"#)
        try await Self.waitForAccepted(mock, atLeast: Self.devices / 3)
        server.kill9()
        _ = try await server.waitForExit()
        #expect(server.process.terminationReason == .uncaughtSignal)
        let beforeRestart = mock.stats().accepted
        #expect(beforeRestart < Self.devices, "the kill came after the fan-out had finished: nothing tested")

        let (restarted, again) = try await Self.serve(files)
        let status = try await Self.waitUntilPublished(again, id)
        let duplicates = Self.checkEveryDeviceServed(mock)
        // Re-sent are only the pages open at the kill (never checkpointed): at most maxOpenPages × pageSize.
        #expect(duplicates <= Self.pageSize * Self.maxOpenPages, "\(duplicates) devices served twice")
        print("kill -9 after \(beforeRestart) of \(Self.devices) accepted: \(duplicates) devices served twice after the restart")
        #expect(status.delivery("targeted") == Int64(Self.devices))
        #expect(status.delivery("sent") == Int64(Self.devices), "counts are written with their page, so none is counted twice")
        #expect(status.delivery("pending") == 0)
        restarted.process.terminate()
        #expect(try await restarted.waitForExit() == 0)
        // The history is written with the checkpoints: the pages re-sent after the kill were never recorded
        // before it, so each device has exactly one entry, like the counts.
        let history = try await Self.history(files, message: id)
        #expect(history.count == Self.devices, "one entry per device, not per send")
        #expect(history.values.allSatisfy { $0 == ["sent"] })
    }

    /// Each device's delivery-history outcomes for `message`, read from the stopped server's file.
    static func history(_ files: (config: String, database: String), message: String) async throws -> [String: [String]] {
        try await HeraldRuntime.withMigrated(try DatabaseURL(parsing: files.database), logger: Logger(label: "herald.tests")) { backend in
            try await backend.read { db in
                var outcomes: [String: [String]] = [:]
                for row in try await db.raw("SELECT device_id, outcome FROM deliveries WHERE message_id = \(bind: message)").all() {
                    outcomes[try row.decode(column: "device_id", as: String.self), default: []]
                        .append(try row.decode(column: "outcome", as: String.self))
                }
                return outcomes
            }
        }
    }

    @Test func sigtermStopsAFanOutWithinSecondsAndTheRestartFinishesIt() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let mock = try await Self.mock(latency: 20)
        defer { Task { try? await mock.shutdown() } }
        let files = try await Self.prepare(scratch, mock: mock)
        let (server, base) = try await Self.serve(files)
        let id = try await Self.publish(base, #"{"message": "sigterm test"}"#)
        try await Self.waitForAccepted(mock, atLeast: Self.devices / 3)
        let stopping = ContinuousClock.now
        server.process.terminate()
        #expect(try await server.waitForExit(timeout: .seconds(10)) == 0)
        let stopTime = ContinuousClock.now - stopping
        #expect(stopTime < .seconds(5), "SIGTERM took \(stopTime)")
        #expect(mock.stats().accepted < Self.devices, "the fan-out had finished before SIGTERM: nothing tested")
        // Stopped cleanly: every answer read was checkpointed and the lease given back.
        let backend = try await HeraldRuntime.openMigrated(try DatabaseURL(parsing: files.database), logger: Logger(label: "herald.tests"))
        let stopped = try await SQLMessageStore(backend: backend).message(app: "shop", id: id)
        try await backend.close()
        #expect(stopped?.deliveries.sent == Int64(mock.stats().accepted))
        #expect(stopped?.deliveries.pending == 0)
        #expect((stopped?.deliveries.sent ?? 0) > 0, "the checkpoint moved")

        let (restarted, again) = try await Self.serve(files)
        let status = try await Self.waitUntilPublished(again, id, timeout: .seconds(20))
        let duplicates = Self.checkEveryDeviceServed(mock)
        #expect(duplicates == 0, "a graceful stop reads every answer in flight and checkpoints it")
        print("SIGTERM stopped in \(stopTime); \(duplicates) devices served twice after the restart")
        #expect(status.delivery("sent") == Int64(Self.devices))
        restarted.process.terminate()
        _ = try await restarted.waitForExit()
    }

    @Test func aScheduledMessageFiresOnceAfterARestart() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let mock = try await Self.mock(latency: 0)
        defer { Task { try? await mock.shutdown() } }
        let files = try await Self.prepare(scratch, mock: mock)
        let (server, base) = try await Self.serve(files)
        let at = SystemClock().now.milliseconds + 1500
        let id = try await Self.publish(base, #"{"message": "later", "publishAt": \#(at)}"#)
        server.kill9()
        _ = try await server.waitForExit()
        try await Task.sleep(for: .milliseconds(1800))
        #expect(mock.stats().requests == 0, "nothing was due before the kill")

        let (restarted, again) = try await Self.serve(files)
        let status = try await Self.waitUntilPublished(again, id)
        #expect(Self.checkEveryDeviceServed(mock) == 0, "one occurrence, sent once")
        #expect(status.delivery("sent") == Int64(Self.devices))
        restarted.process.terminate()
        _ = try await restarted.waitForExit()
    }
}
