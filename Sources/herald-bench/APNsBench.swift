import ArgumentParser
import Foundation
import HeraldAPNs
import HeraldCore
import HeraldCurl
import HeraldSigning
import Logging

/// `herald-bench apns`: sends N notifications through Herald's APNs client to any APNs-like
/// server (the mock, say) and prints throughput, latency and the CPU the client used.
struct APNsBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apns",
        abstract: "Send notifications through Herald's APNs client and print notifications/s, latency and CPU.")

    @Option(help: "Server base URL: https://HOST:PORT (TLS) or http://HOST:PORT (cleartext h2c).")
    var url: String
    @Option(help: "CA file to trust for the server's certificate.")
    var ca: String?
    @Option(name: .customLong("key-file"), help: "Token auth: the .p8 key.")
    var keyFile: String?
    @Option(name: .customLong("key-id"), help: "Token auth: the key id.")
    var keyID: String?
    @Option(name: .customLong("team-id"), help: "Token auth: the team id.")
    var teamID: String?
    @Option(help: "Certificate auth: client certificate (PEM or .p12), instead of a key.")
    var cert: String?
    @Option(name: .customLong("cert-key"), help: "Certificate auth: the certificate's private key (PEM).")
    var certKey: String?
    @Option(help: "apns-topic (bundle id).")
    var topic: String
    @Option(help: "Notifications to send.")
    var count: Int = 100_000
    @Option(help: "HTTP/2 connections.")
    var connections: Int = 2
    @Option(help: "Concurrent streams per connection.")
    var streams: Int = 500
    @Option(help: "Device token length in hex characters.")
    var tokenLength: Int = 64
    @Option(help: "Payload file (JSON); default a small alert.")
    var payload: String?
    @Option(
        name: .customLong("in-flight"),
        help: "Sends submitted and not yet read at once; default twice connections × streams (the client's own).")
    var inFlight: Int?
    @Option(help: "Notifications sent first and not timed, to open connections.")
    var warmup: Int = 2_000

    func run() async throws {
        let credentials: APNsCredentials
        if let keyFile, let keyID, let teamID {
            credentials = .token(try APNsSigningKey(keyID: keyID, teamID: teamID, p8File: keyFile))
        } else if let cert {
            credentials = .certificate(certificateFile: cert, privateKeyFile: certKey, passphrase: nil)
        } else {
            throw ValidationError("give --key-file, --key-id and --team-id (token auth) or --cert (certificate auth)")
        }
        let body =
            try payload.map { Array(try Data(contentsOf: URL(fileURLWithPath: $0))) }
            ?? Array(#"{"aps":{"alert":{"title":"Herald","body":"benchmark"}}}"#.utf8)
        let client = try APNsClient(
            configuration: APNsClientConfiguration(
                environment: .custom(url: url, caFile: ca), credentials: credentials,
                connections: connections, streamsPerConnection: streams))
        defer { client.shutdown() }
        let shared = APNsPayload(body)
        let tokens = TokenMaker(length: tokenLength)
        let topic = topic

        let figures = await ClientBenchFigures.measure(count: count, warmup: warmup) { count in
            await ClientBenchRun.run(
                client.makeSendStream(of: UInt64.self, maxInFlight: inFlight), count: count,
                request: { APNsNotification(deviceToken: tokens.token($0), payload: shared, topic: topic) },
                classify: Self.classify)
        }
        print("notifications: \(count) over \(connections) connection(s) × \(streams) streams, \(url)")
        figures.printRate(unit: "notifications", each: "notification")
        let counters = client.counters
        print("client loop: \(counters.rounds) rounds for \(counters.completed) transfers (warm-up included)")
        figures.printOutcomes()
        if !figures.allSucceeded() { throw ExitCode(1) }
    }

    /// An outcome's kind: the HTTP status, or why there was none.
    @Sendable static func classify(_ outcome: APNsOutcome) -> (key: String, error: String?) {
        switch outcome {
        case .delivered, .rejected: (String(outcome.status ?? 0), nil)
        case .rejectedLocally(let reason): ("local \(reason)", nil)
        case .failed(let error): ("failed \(error.kind.rawValue)", error.description)
        }
    }
}

/// Distinct hex device tokens of one length, made from an index (no randomness to pay for).
struct TokenMaker: Sendable {
    let length: Int

    /// `index` in hex, zero-padded to `length` (its lowest digits if longer), written straight into the
    /// string's storage: the C reference sends one fixed token, so making them should cost next to nothing.
    func token(_ index: Int) -> String {
        String(unsafeUninitializedCapacity: length) { buffer in
            var value = UInt(bitPattern: index)
            for position in stride(from: length - 1, through: 0, by: -1) {
                let digit = UInt8(value & 0xF)
                buffer[position] = digit < 10 ? 0x30 + digit : 0x61 + digit - 10
                value >>= 4
            }
            return length
        }
    }
}
