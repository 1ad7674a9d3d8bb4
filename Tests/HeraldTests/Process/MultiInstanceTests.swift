import APNsMock
import Foundation
import Herald
import HeraldCore
import HeraldStore
import HeraldTestSupport
import Logging
import Testing

/// Several built `herald` binaries on one real PostgreSQL database, with the mock APNs in the test
/// process: whatever instance a request reaches answers the same, one large publish is sent by all of
/// them with each device served once, and an instance dying (kill -9, SIGTERM) or the database going
/// away loses nothing.
@Suite(.serialized, .enabled(if: PostgresTestDatabase.serverURL != nil, "\(PostgresTestDatabase.skipMessage)"))
struct MultiInstanceTests {
    static let pageSize = 100
    static let maxOpenPages = 4
    static let maxConcurrentMessages = 4

    /// A configuration file for the fleet: one app with all three keys, the mock (if any) as its APNs.
    static func config(
        _ scratch: Scratch, mock: APNsMock?, streams: Int = 100, maxSlices: Int = 12, sliceSize: Int = 2500,
        sweeperInterval: Double = 0
    ) throws -> String {
        let apns =
            mock.map { mock in
                """
                , "apns": {"environment": "custom", "url": "\(mock.baseURL)", "caFile": "\(FixtureFiles.caFile)",
                           "topic": "\(PublishHarness.topic)", "teamId": "TESTTEAM01", "keyId": "TESTKEY001",
                           "privateKeyFile": "\(FixtureFiles.keyFile())",
                           "connections": 1, "streamsPerConnection": \(streams)}
                """
            } ?? ""
        return try scratch.write(
            "herald.json",
            """
            {"sweeper": {"intervalSeconds": \(sweeperInterval)},
             "database": {"poolSize": 8},
             "dispatcher": {"pageSize": \(pageSize), "maxOpenPages": \(maxOpenPages), "maxConcurrentMessages": \(maxConcurrentMessages),
                            "pollIntervalSeconds": 0.05, "leaseSeconds": 2, "maxSlices": \(maxSlices), "sliceSize": \(sliceSize)},
             "apps": [{"id": "shop", "keys": [{"key": "k-client", "role": "client"}, {"key": "k-server", "role": "server"},
                                              {"key": "k-admin", "role": "admin"}]\(apns)}]}
            """)
    }

    /// `count` instances of `herald serve` on the database, each on a port of its own.
    static func start(
        _ count: Int, config: String, database: String,
        environment: [String: String] = [:]
    ) async throws -> [(process: HeraldProcess, base: URL)] {
        var fleet: [(HeraldProcess, URL)] = []
        for _ in 0..<count {
            let server = try HeraldProcess(["serve", "--config", config, "--port", "0", "--database", database], environment: environment)
            fleet.append((server, try await server.waitUntilListening()))
        }
        return fleet
    }

    static func stop(_ fleet: [(process: HeraldProcess, base: URL)]) async throws {
        for server in fleet where server.process.process.isRunning { server.process.process.terminate() }
        for server in fleet {
            do {
                _ = try await server.process.waitForExit()
            } catch {
                // What it was doing when it would not stop, for whoever reads the failure.
                Issue.record("\(error); its log ends: \(server.process.stderr.suffix(4000))")
            }
        }
    }

    /// The database as the herald binary is given it (the test server takes no password and no TLS).
    static func databaseURL(_ url: DatabaseURL) -> String { "\(url)?sslmode=disable" }

    /// Registers `devices` devices in channel "news" through the store (the call the route makes).
    static func populate(_ url: DatabaseURL, devices: Int) async throws {
        try await HeraldRuntime.withMigrated(url, logger: Logger(label: "herald.tests")) { backend in
            let store = SQLRegistrationStore(backend: backend)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<devices {
                    if index >= 256 { try await group.next() }
                    group.addTask {
                        let body = #"{"deviceToken": "\#(PublishHarness.token(index))", "deviceId": "dev-\#(index)", "channels": ["news"]}"#
                        let now = SystemClock().now
                        _ = try await store.register(
                            app: "shop", try RegistrationRequest(json: try JSONValue.parse(Array(body.utf8)), now: now), now: now)
                    }
                }
                try await group.waitForAll()
            }
        }
    }

    /// Every one of `devices` tokens reached the mock; returns how many reached it more than once.
    static func checkEveryDeviceServed(_ mock: APNsMock, devices: Int) -> Int {
        let tokens = mock.notifications().map(\.token)
        let expected = Set((0..<devices).map(PublishHarness.token))
        #expect(Set(tokens) == expected, "devices never served: \(expected.subtracting(tokens).count)")
        return tokens.count - Set(tokens).count
    }

    /// How many slices an instance finished or stopped, from its log.
    static func slicesRun(by server: HeraldProcess) -> Int {
        server.stderr.split(separator: "\n").filter { $0.contains("message slice ended") }.count
    }

    @Test func registrationsThroughThreeInstancesAtOnceAreAllKeptAndReadAlikeEverywhere() async throws {
        try await PostgresTestDatabase.with { url in
            let scratch = try Scratch()
            defer { scratch.remove() }
            let fleet = try await Self.start(3, config: try Self.config(scratch, mock: nil), database: Self.databaseURL(url))
            let devices = 600
            // Each device registers into "a" through one instance and into "b" through another, all at once.
            try await withThrowingTaskGroup(of: Void.self) { group in
                for call in 0..<(devices * 2) {
                    if call >= 48 { try await group.next() }
                    group.addTask {
                        let device = call / 2
                        let channel = call % 2 == 0 ? "a" : "b"
                        let base = fleet[(device + call % 2) % 3].base
                        let answer = try await HTTP.send(
                            "POST", base.appendingPathComponent("shop/k-client/messaging/registrations"),
                            json: """
                                {"deviceToken": "\(PublishHarness.token(device))", "deviceId": "dev-\(device)", "channels": ["\(channel)"]}
                                """)
                        #expect(answer.status == 200, "\(answer.body)")
                    }
                }
                try await group.waitForAll()
            }
            for server in fleet {
                let listing = try await HTTP.send("GET", server.base.appendingPathComponent("shop/k-admin/messaging/channels"))
                #expect(listing.status == 200)
                let body = try JSONValue.parse(Array(listing.body.utf8))
                guard case .array(let channels) = body else {
                    Issue.record("unexpected listing \(listing.body)")
                    continue
                }
                let counts = channels.compactMap { channel -> (String, Int64)? in
                    guard case .string(let name)? = channel["name"], case .integer(let count)? = channel["registrations"]
                    else { return nil }
                    return (name, count)
                }
                #expect(Dictionary(uniqueKeysWithValues: counts) == ["a": Int64(devices), "b": Int64(devices)], "\(listing.body)")
                for device in [0, 299, 599] {
                    let got = try await HTTP.send(
                        "GET", server.base.appendingPathComponent("shop/k-client/messaging/registrations/dev-\(device)"))
                    #expect(got.status == 200 && got.body.contains("\"a\"") && got.body.contains("\"b\""), "\(got.body)")
                }
            }
            try await Self.stop(fleet)
        }
    }

    @Test func oneLargePublishIsSentByAllThreeInstancesToEachDeviceOnce() async throws {
        try await PostgresTestDatabase.with { url in
            let scratch = try Scratch()
            defer { scratch.remove() }
            let devices = 30_000
            let mock = try await FanOutCrashTests.mock(latency: 0)
            defer { Task { try? await mock.shutdown() } }
            try await Self.populate(url, devices: devices)
            let fleet = try await Self.start(3, config: try Self.config(scratch, mock: mock), database: Self.databaseURL(url))
            let id = try await FanOutCrashTests.publish(fleet[0].base, #"{"message": "to everyone"}"#)
            let status = try await FanOutCrashTests.waitUntilPublished(fleet[2].base, id, timeout: .seconds(120))
            #expect(Self.checkEveryDeviceServed(mock, devices: devices) == 0, "no instance sent what another did")
            #expect(status.delivery("sent") == Int64(devices))
            #expect(status.delivery("targeted") == Int64(devices))
            #expect(status.delivery("pending") == 0)
            let shares = fleet.map { Self.slicesRun(by: $0.process) }
            print("slices run per instance: \(shares)")
            #expect(shares.allSatisfy { $0 > 0 }, "every instance sent a share: \(shares)")
            #expect(shares.reduce(0, +) == 12, "12 slices of 2,500")
            try await Self.stop(fleet)
        }
    }

    /// A fleet of `instances` on a fresh database of 12,000 devices and a mock that answers after 20 ms,
    /// with one publish under way: `body` runs once the mock has accepted `devices / fraction`, then the
    /// fleet is stopped. The slow mock makes the fan-out last seconds, so something can happen mid-way.
    static func midFanOut(
        instances: Int, fraction: Int,
        _ body: (
            _ fleet: [(process: HeraldProcess, base: URL)], _ mock: APNsMock,
            _ id: String, _ devices: Int
        ) async throws -> Void
    ) async throws {
        try await PostgresTestDatabase.with { url in
            let scratch = try Scratch()
            defer { scratch.remove() }
            let devices = 12_000
            let mock = try await FanOutCrashTests.mock(latency: 20)
            defer { Task { try? await mock.shutdown() } }
            try await populate(url, devices: devices)
            let fleet = try await start(
                instances, config: try config(scratch, mock: mock, streams: 20, sliceSize: 1000),
                database: databaseURL(url))
            let id = try await FanOutCrashTests.publish(fleet[0].base, #"{"message": "mid fan-out"}"#)
            try await FanOutCrashTests.waitForAccepted(mock, atLeast: devices / fraction)
            try await body(fleet, mock, id, devices)
            try await stop(fleet)
        }
    }

    @Test func killingOneInstanceMidFanOutLeavesItsSlicesToTheOthers() async throws {
        try await Self.midFanOut(instances: 3, fraction: 3) { fleet, mock, id, devices in
            fleet[1].process.kill9()
            _ = try await fleet[1].process.waitForExit()
            #expect(mock.stats().accepted < devices, "the kill came after the fan-out had finished: nothing tested")
            let status = try await FanOutCrashTests.waitUntilPublished(fleet[0].base, id, timeout: .seconds(120))
            let duplicates = Self.checkEveryDeviceServed(mock, devices: devices)
            // Re-sent are only the pages the dead instance had open: per slice it held, maxOpenPages × pageSize.
            #expect(duplicates <= Self.maxConcurrentMessages * Self.maxOpenPages * Self.pageSize, "\(duplicates) devices served twice")
            print("kill -9 of one of three instances: \(duplicates) devices served twice")
            #expect(status.delivery("sent") == Int64(devices), "counts are written with their page, so none is counted twice")
            #expect(status.delivery("pending") == 0)
        }
    }

    @Test func sigtermOfOneInstanceHandsItsSlicesOverWithNothingSentTwice() async throws {
        try await Self.midFanOut(instances: 3, fraction: 3) { fleet, mock, id, devices in
            let stopping = ContinuousClock.now
            fleet[1].process.process.terminate()
            #expect(try await fleet[1].process.waitForExit(timeout: .seconds(10)) == 0)
            #expect(ContinuousClock.now - stopping < .seconds(5))
            let status = try await FanOutCrashTests.waitUntilPublished(fleet[0].base, id, timeout: .seconds(120))
            #expect(Self.checkEveryDeviceServed(mock, devices: devices) == 0, "a graceful stop checkpoints what it sent")
            #expect(status.delivery("sent") == Int64(devices))
        }
    }

    @Test func instancesSharingADatabaseSweepOncePerIntervalBetweenThem() async throws {
        try await PostgresTestDatabase.with { url in
            let scratch = try Scratch()
            defer { scratch.remove() }
            let interval = 0.5
            let fleet = try await Self.start(
                3, config: try Self.config(scratch, mock: nil, sweeperInterval: interval),
                database: Self.databaseURL(url), environment: ["HERALD_LOG_LEVEL": "debug"])
            let window = 4.0
            try await Task.sleep(for: .seconds(window))
            try await Self.stop(fleet)
            let sweeps = fleet.map { $0.process.stderr.split(separator: "\n").filter { $0.contains("swept expired registrations") }.count }
            print("sweeps per instance in \(window) s at \(interval) s: \(sweeps)")
            // Alone, each would sweep every 0.5 s (24 in all); taking turns they sweep about 8 to 10 times between them.
            #expect(sweeps.reduce(0, +) <= Int(window / (interval * 0.8)) + 3, "\(sweeps)")
            #expect(sweeps.reduce(0, +) >= 3, "\(sweeps)")
        }
    }

    @Test(.enabled(if: ProcessInfo.processInfo.environment["HERALD_TEST_POSTGRES_CTL"] != nil))
    func aPostgreSQLRestartMidFanOutAnswers503MeanwhileAndLosesNothing() async throws {
        let control = try #require(ProcessInfo.processInfo.environment["HERALD_TEST_POSTGRES_CTL"])
        func postgres(_ verb: String) throws {
            let result = try ChildProcess.run(control, [verb], mergeOutput: true)
            #expect(result.code == 0, "postgres \(verb): \(result.stdout)")
        }
        try await Self.midFanOut(instances: 2, fraction: 4) { fleet, mock, id, devices in
            try postgres("stop")
            let during = try await HTTP.send("GET", fleet[1].base.appendingPathComponent("shop/k-server/messaging/\(id)"))
            #expect(during.status == 503, "\(during.body)")
            let body = try JSONValue.parse(Array(during.body.utf8))
            #expect(body["code"] == .integer(503) && body["message"] != nil, "\(during.body)")
            try postgres("start")
            let status = try await FanOutCrashTests.waitUntilPublished(fleet[1].base, id, timeout: .seconds(120))
            let duplicates = Self.checkEveryDeviceServed(mock, devices: devices)
            #expect(duplicates <= 2 * Self.maxConcurrentMessages * Self.maxOpenPages * Self.pageSize, "\(duplicates) devices served twice")
            print("PostgreSQL restart mid fan-out: \(duplicates) devices served twice")
            #expect(status.delivery("sent") == Int64(devices))
            #expect(status.delivery("pending") == 0)
            for server in fleet { #expect(server.process.process.isRunning, "no instance crashed") }
        }
    }
}
