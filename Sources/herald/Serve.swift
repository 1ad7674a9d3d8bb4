import ArgumentParser
import Foundation
import Herald
import HeraldCore

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Run the server (applies pending migrations first).")

    @OptionGroup var common: CommonOptions

    @Option(name: .long, help: "Address to listen on (default 127.0.0.1).")
    var host: String?

    @Option(name: .long, help: "Port to listen on (default 8080; 0 picks a free one).")
    var port: Int?

    func run() async throws {
        try await reportingFailures {
            let configuration = try common.load(host: host, port: port)
            try await HeraldRuntime.serve(configuration: configuration, logger: makeLogger(configuration)) { started in
                // Unbuffered, so a supervisor or a test reading the pipe sees it as soon as the port is open.
                FileHandle.standardOutput.write(Data((Banner.text(for: started) + "\n").utf8))
            }
        }
    }
}

/// What `herald serve` prints once it listens: where, and in demo mode the keys and a curl line to try.
enum Banner {
    static func text(for started: HeraldRuntime.Started) -> String {
        let base = "http://\(started.host.contains(":") ? "[\(started.host)]" : started.host):\(started.port)"
        var lines = ["Herald listening on \(base) (database \(started.database))"]
        guard let demo = started.demo else { return lines.joined(separator: "\n") }
        guard demo.created else {
            lines.append("Demo app '\(demo.app.id)' in use; its keys were printed on first start. `herald keys` shows them again.")
            return lines.joined(separator: "\n")
        }
        lines.append("No apps configured: created app '\(demo.app.id)' with these keys (kept in the database):")
        for key in demo.app.keys { lines.append("  \(key.role.rawValue.padding(toLength: 7, withPad: " ", startingAt: 0)) \(key.key)") }
        if let client = demo.app.keys.first(where: { $0.role == .client }) {
            lines.append("Try it:")
            lines.append(
                "  curl -s -X POST \(base)/\(demo.app.id)/\(client.key)/messaging/registrations -H 'Content-Type: application/json' -d '{\"deviceToken\":\"a1b2c3d4e5f60718\",\"deviceId\":\"my-phone\",\"channels\":[\"news\"]}'"
            )
        }
        return lines.joined(separator: "\n")
    }
}
