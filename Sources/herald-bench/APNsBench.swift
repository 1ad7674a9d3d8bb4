import ArgumentParser
import Foundation
import HeraldAPNs
import HeraldCurl
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

        if warmup > 0 { _ = try await run(client, shared, tokens, count: warmup) }
        let cpuBefore = cpuSeconds()
        let started = ContinuousClock.now
        let result = try await run(client, shared, tokens, count: count)
        let elapsed = ContinuousClock.now - started
        let cpu = cpuSeconds() - cpuBefore
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        var latencies = result.latencies
        latencies.sort()
        func percentile(_ p: Double) -> Double {
            latencies.isEmpty ? 0 : Double(latencies[min(latencies.count - 1, Int(Double(latencies.count) * p))]) / 1e6
        }
        print("notifications: \(count) over \(connections) connection(s) × \(streams) streams, \(url)")
        print(String(format: "elapsed: %.3f s   rate: %.0f notifications/s", seconds, Double(count) / seconds))
        print(String(format: "latency: p50 %.2f ms   p99 %.2f ms   max %.2f ms", percentile(0.5), percentile(0.99), percentile(1.0)))
        print(String(format: "client CPU: %.2f s (%.1f µs per notification)", cpu, cpu / Double(count) * 1e6))
        let counters = client.counters
        print("client loop: \(counters.rounds) rounds for \(counters.completed) transfers (warm-up included)")
        print("outcomes: " + result.outcomes.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
        for (key, message) in result.firstErrors.sorted(by: { $0.key < $1.key }) { print("first \(key): \(message)") }
        if result.outcomes["200"] != count { throw ExitCode(1) }
    }

    private struct RunResult: Sendable {
        var latencies: [UInt64] = []
        var outcomes: [String: Int] = [:]
        var firstErrors: [String: String] = [:]
    }

    private func run(_ client: APNsClient, _ payload: APNsPayload, _ tokens: TokenMaker, count: Int) async throws -> RunResult {
        let stream = client.makeSendStream(of: UInt64.self)
        return await withTaskGroup(of: RunResult.self) { group in
            group.addTask {
                var result = RunResult()
                result.latencies.reserveCapacity(count)
                for await delivery in stream.results {
                    result.latencies.append(DispatchTime.now().uptimeNanoseconds - delivery.tag)
                    let key: String
                    switch delivery.outcome {
                    case .delivered, .rejected: key = String(delivery.outcome.status ?? 0)
                    case .rejectedLocally(let reason): key = "local \(reason)"
                    case .failed(let error):
                        key = "failed \(error.kind.rawValue)"
                        if result.outcomes[key] == nil { result.firstErrors[key] = error.description }
                    }
                    result.outcomes[key, default: 0] += 1
                }
                return result
            }
            for index in 0..<count {
                let notification = APNsNotification(deviceToken: tokens.token(index), payload: payload, topic: topic)
                await stream.submit(notification, tag: DispatchTime.now().uptimeNanoseconds)
            }
            stream.finish()
            return await group.next()!
        }
    }

    private func cpuSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }
}

/// Distinct hex device tokens of one length, made from an index (no randomness to pay for).
struct TokenMaker: Sendable {
    let length: Int

    private let zeros: String

    init(length: Int) {
        self.length = length
        zeros = String(repeating: "0", count: length)
    }

    func token(_ index: Int) -> String {
        let hex = String(index, radix: 16)
        return String(zeros.dropLast(min(hex.count, length))) + String(hex.suffix(length))
    }
}
