import ArgumentParser
import Foundation
import Herald
import HeraldCore
import HeraldStore
import WebPushMock

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `herald-bench webpush-publish`: the whole broker sending Web Push, measured from outside. Starts the
/// mock push service in this process (TLS, nothing recorded, every body decrypted unless told not to),
/// registers a channel of WEB devices (each its own subscription, so each its own encryption) into a new
/// SQLite database, runs the `herald` binary on it and times publish → the mock accepting every
/// notification, with the server's CPU per notification.
struct WebPushPublishBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "webpush-publish",
        abstract: "Time a fan-out to a channel of web devices through a running herald against the mock push service.")

    @Option(help: "The herald binary to run (a release build).")
    var herald = ".build-release/release/herald"
    @Option(help: "The repository's fixtures directory (TLS certificates, the VAPID test key).")
    var fixtures = "fixtures"
    @Option(help: "WEB devices in the channel.")
    var devices = 50_000
    @Option(help: "Fan-outs of the whole channel.")
    var rounds = 3
    @Option(help: "HTTP/2 connections to the push service, and streams per connection (the app's webPush settings).")
    var connections = 2
    @Option var streams = 100
    @Flag(help: "The mock skips decryption (only the record's header is checked): Herald's own ceiling.")
    var noDecrypt = false

    func run() async throws {
        var mockConfiguration = WebPushMockConfiguration(
            transport: .tls(certificateChainFile: fixtures + "/tls/server.crt", privateKeyFile: fixtures + "/tls/server.key"))
        mockConfiguration.recordMessages = false
        mockConfiguration.decrypt = !noDecrypt
        let mock = try await WebPushMock.start(mockConfiguration)
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("herald-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let database = "sqlite://" + scratch.appendingPathComponent("herald.sqlite").path
        try await register(database: database, mock: mock)
        let root = FileManager.default.currentDirectoryPath + "/" + fixtures
        let config = scratch.appendingPathComponent("herald.json")
        try """
        {"sweeper": {"intervalSeconds": 0},
         "apps": [{"id": "bench", "keys": [{"key": "k-server", "role": "server"}],
                   "webPush": {"privateKeyFile": "\(root)/webpush/vapid-test.pem", "subject": "mailto:bench@herald.example",
                               "caFile": "\(root)/tls/ca.crt", "allowPrivateHosts": true,
                               "connections": \(connections), "streamsPerConnection": \(streams)}}]}
        """.write(to: config, atomically: true, encoding: .utf8)
        let server = try BenchServer(binary: herald, arguments: ["serve", "--config", config.path, "--port", "0", "--database", database])
        defer { server.stop() }
        let base = try await server.waitUntilListening()
        print(
            "herald pid \(server.pid) on \(base.absoluteString); \(devices) WEB devices; mock \(noDecrypt ? "not decrypting" : "decrypting every body")"
        )
        for round in 1...rounds {
            let before = mock.stats().accepted
            let cpuBefore = server.cpuSeconds()
            let start = ContinuousClock.now
            let answer = try await BenchHTTP.send(
                "POST", base.appendingPathComponent("bench/k-server/messaging/web"),
                json: #"{"message": "bench", "headers": {"web-title": "Herald", "web-url": "https://example.com/"}}"#)
            guard answer.status == 200, case .string(let id)? = try JSONValue.parse(Array(answer.body.utf8)).field("messageId") else {
                throw ValidationError("publish answered \(answer.status): \(answer.body)")
            }
            var status = JSONValue.null
            while true {
                let reply = try await BenchHTTP.send("GET", base.appendingPathComponent("bench/k-server/messaging/\(id)"))
                status = try JSONValue.parse(Array(reply.body.utf8))
                if status.field("status") != .string("scheduled") { break }
                if ContinuousClock.now - start > .seconds(600) { throw ValidationError("fan-out still running after 10 minutes") }
                try await Task.sleep(for: .milliseconds(20))
            }
            let seconds = (ContinuousClock.now - start).seconds
            let accepted = mock.stats().accepted - before
            let cpu = server.cpuSeconds() - cpuBefore
            var sent = "?"
            if case .integer(let count)? = status.field("deliveries")?.field("sent") { sent = String(count) }
            print(
                "round \(round): \(accepted) notifications accepted in \(format(seconds, 2)) s = \(Int(Double(accepted) / seconds))/s; "
                    + "sent \(sent); server CPU \(format(cpu / seconds, 2)) cores, \(format(cpu * 1e6 / Double(max(1, accepted)), 1)) µs per notification"
            )
            if accepted != devices { throw ValidationError("the mock accepted \(accepted) of \(devices)") }
        }
        try await mock.shutdown()
    }

    /// The channel `web`: one subscription per device, registered through the store's own checks.
    func register(database: String, mock: WebPushMock) async throws {
        let backend = try await HeraldRuntime.openMigrated(try DatabaseURL(parsing: database), logger: benchLogger())
        let store = SQLRegistrationStore(backend: backend)
        let rules = DeviceToken.Rules(webPushHosts: .init(allowPrivateHosts: true))
        let started = ContinuousClock.now
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<16 {
                group.addTask {
                    for index in stride(from: worker, to: devices, by: 16) {
                        let body = JSONValue.object([
                            "deviceToken": .string(mock.subscription(id: "bench-\(index)")), "deviceId": .string("web-\(index)"),
                            "os": .string("WEB"), "channels": .array([.string("web")]),
                        ])
                        let now = SystemClock().now
                        _ = try await store.register(app: "bench", try RegistrationRequest(json: body, now: now, rules: rules), now: now)
                    }
                }
            }
            try await group.waitForAll()
        }
        try await backend.close()
        print("registered \(devices) WEB devices in \(format((ContinuousClock.now - started).seconds, 1)) s")
    }
}
