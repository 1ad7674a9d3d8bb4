import ArgumentParser
import Foundation
import HeraldCore
import HeraldCurl
import HeraldFCM

/// `herald-bench fcm`: sends N messages through Herald's FCM client to any FCM-like server (the mock,
/// say) and prints throughput, latency and the CPU the client used. Each message is built as a fan-out
/// builds it: one `FCMContent` template around each device's token, one body per send.
struct FCMBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fcm",
        abstract: "Send messages through Herald's FCM client and print messages/s, latency and CPU.")

    @Option(help: "FCM base URL: https://HOST:PORT (TLS) or http://HOST:PORT (cleartext h2c).")
    var url: String
    @Option(help: "CA file to trust for the server's certificate (FCM and the token endpoint).")
    var ca: String?
    @Option(help: "Service-account key file (JSON); its token_uri is where access tokens come from (the mock's).")
    var serviceAccount: String
    @Option(help: "Messages to send.")
    var count: Int = 100_000
    @Option(help: "HTTP/2 connections.")
    var connections: Int = 2
    @Option(help: "Concurrent streams per connection.")
    var streams: Int = 100
    @Option(help: "The message object without its token (JSON); default a notification with a title and a body.")
    var message: String?
    @Option(
        name: .customLong("in-flight"),
        help: "Sends submitted and not yet read at once; default twice connections × streams (the client's own).")
    var inFlight: Int?
    @Option(help: "Messages sent first and not timed, to fetch the access token and open connections.")
    var warmup: Int = 2_000

    func run() async throws {
        let account = try FCMServiceAccount(jsonFile: serviceAccount)
        let object =
            try message.map { Array(try Data(contentsOf: URL(fileURLWithPath: $0))) }
            ?? Array(#"{"notification":{"title":"Herald","body":"benchmark"}}"#.utf8)
        let content = FCMContent(encodedMessage: object)
        let configuration = FCMClientConfiguration(
            serviceAccount: account, baseURL: url, caFile: ca, connections: connections, streamsPerConnection: streams)
        let client = try FCMClient(configuration: configuration, logger: benchLogger())
        defer { client.shutdown() }

        let figures = await ClientBenchFigures.measure(count: count, warmup: warmup) { count in
            let stream = SendStream<FCMBenchRequest, FCMOutcome, UInt64>(maxInFlight: inFlight ?? configuration.maxInFlight) {
                request, completion in
                client.send(token: request.token, body: request.body, completion: completion)
            }
            return await ClientBenchRun.run(
                stream, count: count,
                request: { index in
                    let token = FCMBenchToken.make(index)
                    return FCMBenchRequest(token: token, body: CurlBody(content.requestBody(token: token)))
                },
                classify: Self.classify)
        }
        print("messages: \(count) over \(connections) connection(s) × \(streams) streams, \(url) (project \(account.projectID))")
        figures.printRate(unit: "notifications", each: "notification")
        let counters = client.counters
        print("client loop: \(counters.rounds) rounds for \(counters.completed) transfers (warm-up included)")
        figures.printOutcomes()
        if !figures.allSucceeded() { throw ExitCode(1) }
    }

    /// An outcome's kind: the HTTP status with FCM's error code, or why there was no answer.
    @Sendable static func classify(_ outcome: FCMOutcome) -> (key: String, error: String?) {
        switch outcome {
        case .delivered: ("200", nil)
        case .rejected(let response):
            ([String(response.status), response.errorCode?.name].compactMap { $0 }.joined(separator: " "), response.message)
        case .failed(let error): ("failed \(error.kind.rawValue)", error.description)
        }
    }
}

/// One send of the bench: the device token (for the client's logs) and its whole request body.
struct FCMBenchRequest: Sendable {
    var token: String
    var body: CurlBody
}
