import ArgumentParser
import Foundation
import HeraldAPNs
import HeraldCore
import HeraldCurl
import HeraldDeviceCheck
import HeraldSigning

/// `herald-bench devicecheck`: N calls (queries by default) through Herald's DeviceCheck client to any
/// DeviceCheck-like server (the mock), each for its own device token, and the throughput, latency and
/// CPU of the client. The calls go through `DeviceCheckClient.perform`, retries included, as the
/// routes make them.
struct DeviceCheckBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "devicecheck",
        abstract: "Call DeviceCheck through Herald's client and print calls/s, latency and CPU.")

    @Option(help: "DeviceCheck base URL: https://HOST:PORT (TLS) or http://HOST:PORT (cleartext h2c).")
    var url: String
    @Option(help: "CA file to trust for the server's certificate.")
    var ca: String?
    @Option(name: .customLong("key-file"), help: "The .p8 key.")
    var keyFile: String
    @Option(name: .customLong("key-id"))
    var keyID: String
    @Option(name: .customLong("team-id"))
    var teamID: String
    @Option(help: "query, update or validate.")
    var operation = "query"
    @Option(help: "Calls to make.")
    var count: Int = 50_000
    @Option(help: "HTTP/2 connections.")
    var connections: Int = 1
    @Option(help: "Concurrent streams per connection.")
    var streams: Int = 100
    @Option(help: "Calls made first and not timed, to open the connections.")
    var warmup: Int = 1_000

    func run() async throws {
        guard let operation = DeviceCheckOperation.allCases.first(where: { $0.name == self.operation }) else {
            throw ValidationError("--operation must be query, update or validate")
        }
        let key = try APNsSigningKey(keyID: keyID, teamID: teamID, p8File: keyFile)
        let configuration = DeviceCheckClientConfiguration(
            environment: .custom(url: url, caFile: ca), key: key, connections: connections, streamsPerConnection: streams)
        let client = try DeviceCheckClient(configuration: configuration, logger: benchLogger())
        defer { client.shutdown() }
        let inFlight = connections * streams
        let figures = await ClientBenchFigures.measure(count: count, warmup: warmup) { count in
            let stream = SendStream<DeviceCheckRequest, Result<DeviceCheckResult, DeviceCheckFailure>, UInt64>(
                maxInFlight: inFlight
            ) { request, completion in
                Task { completion(await client.perform(request)) }
            }
            return await ClientBenchRun.run(
                stream, count: count,
                request: { index in
                    DeviceCheckRequest(operation, deviceToken: Self.token(index), bit0: index % 2 == 0, bit1: index % 3 == 0)
                },
                classify: Self.classify)
        }
        print("calls: \(count) \(self.operation) over \(connections) connection(s) × \(streams) streams, \(url)")
        figures.printRate(unit: "calls", each: "call")
        figures.printOutcomes()
        if !figures.allSucceeded() { throw ExitCode(1) }
    }

    /// A distinct base64 token for each index, of a real token's order of size (about 2 KB).
    static func token(_ index: Int) -> String {
        var bytes = [UInt8](repeating: 0x5a, count: 1_500)
        withUnsafeBytes(of: UInt64(index).littleEndian) { bytes.replaceSubrange(0..<8, with: $0) }
        return Data(bytes).base64EncodedString()
    }

    /// "200" for a result (the client only returns one on a 200), else the failure's kind.
    @Sendable static func classify(_ outcome: Result<DeviceCheckResult, DeviceCheckFailure>) -> (key: String, error: String?) {
        switch outcome {
        case .success: ("200", nil)
        case .failure(let failure):
            (String(describing: failure).split(separator: ":").first.map(String.init) ?? "failure", failure.description)
        }
    }
}
