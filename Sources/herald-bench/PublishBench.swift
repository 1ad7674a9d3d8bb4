import APNsMock
import ArgumentParser
import Foundation
import HeraldCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `herald-bench publish`: the whole broker, measured from outside. Starts the mock APNs in this process
/// (TLS, token auth, nothing recorded), and with `--fcm` the mock FCM too (the app then gets an `fcm`
/// block), runs the `herald` binary as a separate process on a populated database, and times (1) publish
/// → the first APNs request for a one-device channel, and (2) publish → the mocks accepting every
/// notification of a large channel (its IOS devices through APNs, its ANDROID ones through FCM),
/// sampling the server's resident memory.
struct PublishBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "publish",
        abstract: "Time publish-to-APNs latency and channel fan-out of a running herald against the mocks (APNs, FCM with --fcm).")

    @OptionGroup var database: DatabaseOption

    @Option(help: "The herald binary to run (a release build).")
    var herald = ".build-release/release/herald"

    @Option(help: "The repository's fixtures directory (TLS certificates, the test key and service account).")
    var fixtures = "fixtures"

    @Option(help: "App id the populated rows belong to (herald-bench populate --app).")
    var app = "bench"

    @Option(help: "The populated channel to fan out to.")
    var channel = "channel-0"

    @Option(help: "Fan-outs of the whole channel (0: the latency only).")
    var rounds = 3

    @Option(help: "Publishes to a one-device channel, for the latency to the first APNs request.")
    var latencySamples = 200

    @Option(help: "Herald instances on the database (PostgreSQL shares a fan-out between them); publishes go to the first.")
    var instances = 1

    @Option(help: "Record each notification in its device's delivery history (history.enabled).")
    var history = true

    @Option(help: "Keep Prometheus metrics (metrics.enabled); false measures what they cost.")
    var metrics = true

    @Option(help: "HTTP/2 connections to the mock, and streams per connection (the app's apns settings).")
    var connections = 2
    @Option var streams = 500

    @Option(
        help:
            "Milliseconds between the message status polls while a fan-out runs (each poll is work for the server: raise it under callgrind)."
    )
    var pollMilliseconds = 20

    @Flag(help: "Also run the mock FCM (TLS, nothing recorded) and give the app an fcm block, for channels with ANDROID devices.")
    var fcm = false

    @Option(help: "HTTP/2 connections to the mock FCM, and streams per connection (the app's fcm settings).")
    var fcmConnections = 2
    @Option var fcmStreams = 100

    func validate() throws {
        guard rounds >= 0, latencySamples >= 0, instances >= 1, pollMilliseconds >= 1 else {
            throw ValidationError("--rounds and --latency-samples must be 0 or more, --instances and --poll-milliseconds 1 or more")
        }
    }

    func run() async throws {
        let audience = try await ChannelAudience.read(database, app: app, channel: channel)
        let mocks = try await PublishMocks.start(fixtures: fixtures, fcm: fcm)
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("herald-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let config = scratch.appendingPathComponent("herald.json")
        try configuration(mocks: mocks, scratch: scratch).write(to: config, atomically: true, encoding: .utf8)
        var servers: [BenchServer] = []
        defer { for server in servers { server.stop() } }
        var base: URL?
        for _ in 0..<max(1, instances) {
            let server = try BenchServer(
                binary: herald,
                arguments: [
                    "serve", "--config", config.path, "--port", "0",
                    "--database", database.database,
                ])
            servers.append(server)
            let url = try await server.waitUntilListening()
            base = base ?? url
            print("herald pid \(server.pid) listening on \(url.absoluteString), RSS at rest \(server.residentKiB() / 1024) MiB")
        }
        guard let base else { return }
        let idle = servers.map { $0.residentKiB() }

        try await latency(base: base, mocks: mocks)
        let devices = try await fanOut(base: base, mocks: mocks, audience: audience, servers: servers)
        // With no fan-out round (--rounds 0, latency only) there is no channel size to report.
        let fannedOut = rounds > 0 ? "; channel \(devices) devices" : ""
        for (index, server) in servers.enumerated() {
            print(
                "instance \(index + 1): peak RSS over the run (VmHWM) \(server.peakKiB() / 1024) MiB; at rest before: \(idle[index] / 1024) MiB\(fannedOut)"
            )
        }
        try await mocks.shutdown()
    }

    func configuration(mocks: PublishMocks, scratch: URL) throws -> String {
        let root = FileManager.default.currentDirectoryPath + "/" + fixtures
        let fcmBlock = try mocks.fcmBlock(fixtures: fixtures, directory: scratch, connections: fcmConnections, streams: fcmStreams)
        return """
            {"sweeper": {"intervalSeconds": 0}, "history": {"enabled": \(history)}, "metrics": {"enabled": \(metrics)},
             "apps": [{"id": "\(app)", "keys": [{"key": "k-client", "role": "client"}, {"key": "k-server", "role": "server"}],
                       "apns": {"environment": "custom", "url": "\(mocks.apns.baseURL)", "caFile": "\(root)/tls/ca.crt",
                                "topic": "com.example.herald", "teamId": "TESTTEAM01", "keyId": "TESTKEY001",
                                "privateKeyFile": "\(root)/keys/AuthKey_TESTKEY001.p8",
                                "connections": \(connections), "streamsPerConnection": \(streams)}\(fcmBlock.map { ",\n" + $0 } ?? "")}]}
            """
    }

    /// Publish to a channel of one device, and time until the mock sees the request.
    func latency(base: URL, mocks: PublishMocks) async throws {
        guard latencySamples > 0 else { return }
        _ = try await BenchHTTP.send(
            "POST", base.appendingPathComponent("\(app)/k-client/messaging/registrations"),
            json: #"{"deviceToken": "ab\#(String(repeating: "0", count: 62))", "deviceId": "latency-probe", "channels": ["one"]}"#)
        var samples: [Double] = []
        for _ in 0..<latencySamples {
            let before = mocks.apnsRequests
            let start = ContinuousClock.now
            let answer = try await BenchHTTP.send(
                "POST", base.appendingPathComponent("\(app)/k-server/messaging/one"), json: #"{"message": "ping"}"#)
            guard answer.status == 200 else { throw ValidationError("publish answered \(answer.status): \(answer.body)") }
            while mocks.apnsRequests == before {
                if ContinuousClock.now - start > .seconds(10) { throw ValidationError("no APNs request 10 s after a publish") }
                try await Task.sleep(for: .microseconds(200))
            }
            samples.append((ContinuousClock.now - start).seconds * 1000)
            try await Task.sleep(for: .milliseconds(5))
        }
        samples.sort()
        func at(_ q: Double) -> String { format(samples[min(samples.count - 1, Int(Double(samples.count) * q))], 1) }
        print(
            "publish → first APNs request, \(samples.count) publishes: p50 \(at(0.5)) ms, p90 \(at(0.9)) ms, p99 \(at(0.99)) ms, max \(format(samples.last ?? 0, 1)) ms"
        )
    }

    /// Publish to the big channel `rounds` times; a round ends when the message is no longer scheduled and
    /// the mocks have accepted, between them, one notification per device of the channel (its IOS devices
    /// through APNs; its ANDROID ones through FCM, with `--fcm`).
    func fanOut(base: URL, mocks: PublishMocks, audience: ChannelAudience, servers: [BenchServer]) async throws -> Int {
        guard rounds > 0 else { return 0 }
        let expected = audience.apple + (fcm ? audience.android : 0)
        guard expected > 0 else {
            throw ValidationError("'\(channel)' has no active devices of app '\(app)' to send to: is it the populated channel?")
        }
        if fcm || audience.android > 0 {
            let android = fcm ? "FCM" : "skipped: no --fcm"
            print("channel \(channel): \(audience.apple) IOS devices (APNs), \(audience.android) ANDROID (\(android))")
        }
        let headers = fcm ? #"{"ios-alert-title": "Herald", "android-content-title": "Herald"}"# : #"{"ios-alert-title": "Herald"}"#
        for round in 1...rounds {
            let before = mocks.accepted
            let cpuBefore = servers.map { $0.cpuSeconds() }
            let databaseBefore = databaseCPUSeconds()
            let machineBefore = MachineCPU()
            let start = ContinuousClock.now
            let answer = try await BenchHTTP.send(
                "POST", base.appendingPathComponent("\(app)/k-server/messaging/\(channel)"),
                json: #"{"message": "bench", "headers": \#(headers)}"#)
            guard answer.status == 200, case .string(let id)? = try JSONValue.parse(Array(answer.body.utf8)).field("messageId") else {
                throw ValidationError("publish answered \(answer.status): \(answer.body)")
            }
            var peak = 0
            var status = JSONValue.null
            var finishedAt: ContinuousClock.Instant?
            var delivered = mocks.accepted - before
            while true {
                peak = max(peak, servers.map { $0.residentKiB() }.max() ?? 0)
                if finishedAt == nil {
                    let reply = try await BenchHTTP.send("GET", base.appendingPathComponent("\(app)/k-server/messaging/\(id)"))
                    status = try JSONValue.parse(Array(reply.body.utf8))
                    if status.field("status") != .string("scheduled") { finishedAt = .now }
                }
                delivered = mocks.accepted - before
                if let finishedAt {
                    if delivered.total == expected { break }
                    // The mocks count an answer before sending it, so once the message is done they are too.
                    if delivered.total > expected || ContinuousClock.now - finishedAt > .seconds(10) {
                        throw ValidationError(
                            "message \(id) ended \(status.field("status").map { "\($0)" } ?? "?") but the mocks accepted "
                                + "\(delivered.apns) (APNs) + \(delivered.fcm) (FCM) for the channel's \(expected) devices")
                    }
                }
                if ContinuousClock.now - start > .seconds(600) { throw ValidationError("fan-out still running after 10 minutes") }
                try await Task.sleep(for: .milliseconds(pollMilliseconds))
            }
            let seconds = (ContinuousClock.now - start).seconds
            let machineCores = MachineCPU().busyCores(since: machineBefore)
            func count(_ name: String) -> String {
                if case .integer(let value)? = status.field("deliveries")?.field(name) { return String(value) }
                return "?"
            }
            let cores = zip(servers, cpuBefore).map { format(($0.cpuSeconds() - $1) / seconds, 2) }
            let split = fcm ? " (APNs \(delivered.apns) + FCM \(delivered.fcm))" : ""
            let databaseCores = databaseBefore.map { "; database CPU (cores) \(format((databaseCPUSeconds()! - $0) / seconds, 2))" } ?? ""
            print(
                "round \(round): \(delivered.total) notifications accepted\(split) in \(format(seconds, 2)) s = \(Int(Double(delivered.total) / seconds))/s; "
                    + "message targeted \(count("targeted")), sent \(count("sent")), failed \(count("failed")); peak RSS \(peak / 1024) MiB; "
                    + "server CPU (cores) \(cores.joined(separator: " + "))\(databaseCores); machine busy (cores) \(format(machineCores, 2))"
            )
        }
        return expected
    }
}

extension PublishBench {
    /// The CPU time of every PostgreSQL process on this machine so far (the server the database URL names
    /// runs here in the benchmarks); nil for SQLite, whose work is inside Herald's own process.
    func databaseCPUSeconds() -> Double? {
        guard database.database.hasPrefix("postgres") else { return nil }
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap(ProcessStat.init(pid:)).filter { $0.command == "postgres" }.reduce(0) { $0 + $1.cpuSeconds }
    }
}

extension JSONValue {
    func field(_ key: String) -> JSONValue? {
        if case .object(let object) = self { return object[key] }
        return nil
    }
}
