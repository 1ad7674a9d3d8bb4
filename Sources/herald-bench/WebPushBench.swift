import ArgumentParser
import Foundation
import HeraldCore
import HeraldCurl
import HeraldWebPush
import WebPushMock

/// `herald-bench webpush`: sends N notifications through Herald's Web Push client to the mock push
/// service and prints throughput, latency and the CPU the client used. Each one is sent as a fan-out
/// sends it: the subscription read, a fresh key pair and salt, the payload encrypted for that browser,
/// the VAPID token of its service (signed once), one POST.
struct WebPushBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "webpush",
        abstract: "Send notifications through Herald's Web Push client and print notifications/s, latency and CPU.")

    @Option(help: "The mock push service's base URL: https://127.0.0.1:PORT.")
    var url: String
    @Option(help: "CA file to trust for the push service's certificate.")
    var ca: String?
    @Option(help: "The VAPID private key (PEM).")
    var vapidKey = "fixtures/webpush/vapid-test.pem"
    @Option(help: "Notifications to send.")
    var count: Int = 100_000
    @Option(help: "Distinct subscriptions, sent to in turn (the mock derives each one's keys from its id).")
    var subscriptions: Int = 1_000
    @Option(help: "HTTP/2 connections.")
    var connections: Int = 2
    @Option(help: "Concurrent streams per connection.")
    var streams: Int = 100
    @Option(help: "Notifications sent first and not timed, to open connections and sign the VAPID token.")
    var warmup: Int = 2_000
    @Option(
        help: "Write one ready request (body.bin, authorization.txt, url.txt) for the first subscription here and stop: h2load's input.")
    var writeRequest: String?
    @Flag(help: "Only read and encrypt (no network): the CPU per notification of the steps before the send.")
    var encryptOnly = false

    func run() async throws {
        let key = try VAPIDKey(pemFile: vapidKey, subject: "mailto:bench@herald.example")
        let configuration = WebPushClientConfiguration(
            vapidKey: key, caFile: ca, hosts: .init(allowPrivateHosts: true), connections: connections, streamsPerConnection: streams)
        let client = try WebPushClient(configuration: configuration, logger: benchLogger())
        defer { client.shutdown() }
        let content = try WebPushContent(
            message: .string("benchmark"), headers: ["web-title": .string("Herald"), "web-url": .string("https://example.com/")])
        let headers = WebPushClient.Headers(content)
        let tokens = (0..<max(1, subscriptions)).map { WebPushMock.subscription(id: "bench-\($0)", baseURL: url) }
        if encryptOnly {
            Self.timeEncryption(tokens: tokens, content: content, count: count)
            return
        }
        if let directory = writeRequest {
            try Self.writeRequest(to: directory, key: key, content: content, url: url)
            return
        }

        let figures = await ClientBenchFigures.measure(count: count, warmup: warmup) { count in
            let stream = SendStream<String, WebPushOutcome, UInt64>(maxInFlight: configuration.maxInFlight) { token, completion in
                client.send(subscription: token, headers: headers, completion: completion)
            }
            return await ClientBenchRun.run(stream, count: count, request: { tokens[$0 % tokens.count] }, classify: Self.classify)
        }
        print("notifications: \(count) to \(tokens.count) subscriptions over \(connections) connection(s) × \(streams) streams, \(url)")
        figures.printRate(unit: "notifications", each: "notification")
        let counters = client.counters
        print("client loop: \(counters.rounds) rounds for \(counters.completed) transfers (warm-up included)")
        figures.printOutcomes()
        if !figures.allSucceeded("201") { throw ExitCode(1) }
    }

    /// Times the per-notification work before the send, step by step.
    static func timeEncryption(tokens: [String], content: WebPushContent, count: Int) {
        func time(_ name: String, _ body: (Int) throws -> Void) {
            let started = ContinuousClock.now
            for index in 0..<count { try? body(index) }
            let micros = (ContinuousClock.now - started).seconds * 1e6 / Double(count)
            print("\(name): \(String(format: "%.1f", micros)) µs")
        }
        let policy = WebPushSubscription.HostPolicy(allowPrivateHosts: true)
        let parsed = tokens.compactMap { try? WebPushSubscription(parsing: $0, hosts: policy) }
        let recipients = parsed.compactMap { try? WebPushEncryption.Recipient(p256dh: $0.p256dh, auth: $0.auth) }
        time("read the subscription (JSON, checks)") { _ = try WebPushSubscription(parsing: tokens[$0 % tokens.count], hosts: policy) }
        time("the browser's public key") {
            _ = try WebPushEncryption.Recipient(p256dh: parsed[$0 % parsed.count].p256dh, auth: parsed[$0 % parsed.count].auth)
        }
        time("encrypt (key pair, ECDH, HKDF, AES-GCM)") {
            _ = try WebPushEncryption.encrypt(content.payload, for: recipients[$0 % recipients.count])
        }
    }

    /// One request as the client sends it, for a tool that replays it: the encrypted body for subscription
    /// `bench-0`, its `Authorization` value (valid 12 hours) and its endpoint.
    static func writeRequest(to directory: String, key: VAPIDKey, content: WebPushContent, url: String) throws {
        let subscription = try WebPushSubscription(
            parsing: WebPushMock.subscription(id: "bench-0", baseURL: url), hosts: .init(allowPrivateHosts: true))
        let recipient = try WebPushEncryption.Recipient(p256dh: subscription.p256dh, auth: subscription.auth)
        let body = try WebPushEncryption.encrypt(content.payload, for: recipient)
        let endpoint = WebPushMock.endpoint(id: "bench-0", baseURL: url)
        let audience = try VAPIDKey.audience(of: endpoint) ?? { throw ValidationError("no origin in \(endpoint)") }()
        let authorization = try key.authorization(audience: audience, expiresAt: Int64(Date().timeIntervalSince1970) + 12 * 3600)
        let folder = URL(fileURLWithPath: directory)
        try Data(body).write(to: folder.appendingPathComponent("body.bin"))
        try Data(authorization.utf8).write(to: folder.appendingPathComponent("authorization.txt"))
        try Data(endpoint.utf8).write(to: folder.appendingPathComponent("url.txt"))
    }

    /// An outcome's kind: the HTTP status, or why there was no answer.
    @Sendable static func classify(_ outcome: WebPushOutcome) -> (key: String, error: String?) {
        switch outcome {
        case .delivered(let status): (String(status), nil)
        case .rejected(let response): (String(response.status), response.message)
        case .failed(let error): ("failed \(error.kind.rawValue)", error.description)
        }
    }
}
