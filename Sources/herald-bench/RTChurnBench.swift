import ArgumentParser
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// `herald-bench rt-churn`: Backendless RT connections opened and dropped one after another, each with a
/// message listener (Engine.IO v4 on a WebSocket: handshake, namespace connect, `SUB_ON`, `SUB_READY`,
/// then the socket closed without a goodbye, as a phone losing its network does), against a running
/// server: what a leak per connection would show as the server's memory growing with `--cycles`.
struct RTChurnBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rt-churn", abstract: "Open and drop RT connections one after another against a running server.")

    @Option var port: Int
    @Option(help: "The app's path prefix.") var prefix = "/bench/k-admin"
    @Option var cycles = 10_000
    @Option var channel = "churn"

    func run() throws {
        let parts = prefix.split(separator: "/")
        guard parts.count == 2 else { throw ValidationError("--prefix must be /{appId}/{apiKey}") }
        let (app, key) = (String(parts[0]), String(parts[1]))
        let started = monotonicNanoseconds()
        var buffer = [UInt8](repeating: 0, count: 16384)
        for cycle in 0..<cycles {
            let reader = SSEReader()
            try reader.openRT(
                port: port, app: app, key: key,
                events: [
                    "40/\(app),",
                    #"42/\#(app),["SUB_ON",{"id":"c\#(cycle)","name":"PUB_SUB_MESSAGES","options":{"channel":"\#(channel)"}}]"#,
                ])
            let descriptor = reader.descriptorsOpened[0]
            var received: [UInt8] = []
            let deadline = monotonicNanoseconds() + 10_000_000_000
            while received.firstRange(of: Array("SUB_READY".utf8)) == nil {
                guard monotonicNanoseconds() < deadline else { throw ValidationError("cycle \(cycle): no SUB_READY") }
                let count = recv(descriptor, &buffer, buffer.count, 0)
                guard count > 0 else { throw ValidationError("cycle \(cycle): the connection closed") }
                received.append(contentsOf: buffer[..<count])
            }
            close(descriptor)
        }
        let seconds = Double(monotonicNanoseconds() - started) / 1e9
        print(
            String(
                format: "rt-churn: %d connections opened, subscribed and dropped in %.1f s (%.0f/s)", cycles, seconds,
                Double(cycles) / seconds))
    }
}
