import Foundation
import Herald
import HeraldCore
import HeraldStore
import Logging
import Testing

/// `herald` as a new user meets it: no configuration, bad configuration, and the operator commands.
@Suite(.serialized) struct CommandLineTests {
    @Test func serveWithNothingConfiguredCreatesAWorkingDemoApp() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let server = try HeraldProcess(["serve", "--port", "0"], directory: scratch.url)
        let base = try await server.waitUntilListening()
        #expect(FileManager.default.fileExists(atPath: scratch.path("herald.sqlite")), "the default database is ./herald.sqlite")
        let banner = server.stdout
        #expect(banner.contains("created app 'demo'"))
        let keys = Dictionary(uniqueKeysWithValues: banner.split(separator: "\n").compactMap { line -> (String, String)? in
            let parts = line.split(separator: " ")
            guard parts.count == 2, ["client", "server", "admin"].contains(String(parts[0])) else { return nil }
            return (String(parts[0]), String(parts[1]))
        })
        #expect(keys.count == 3)
        let client = try #require(keys["client"])
        #expect(banner.contains("curl -s -X POST \(base.absoluteString)/demo/\(client)/messaging/registrations"))

        // The printed curl line works as printed.
        let answer = try await HTTP.send("POST", base.appendingPathComponent("demo/\(client)/messaging/registrations"),
                                         json: #"{"deviceToken":"a1b2c3d4e5f60718","deviceId":"my-phone","channels":["news"]}"#)
        #expect(answer.status == 200)
        server.process.terminate()
        #expect(try await server.waitForExit(timeout: .seconds(10)) == 0)

        // A second start keeps the same keys (they live in the database) and does not print them.
        let second = try HeraldProcess(["serve", "--port", "0"], directory: scratch.url)
        let secondBase = try await second.waitUntilListening()
        #expect(!second.stdout.contains(client))
        #expect(second.stdout.contains("herald keys"))
        let again = try await HTTP.send("GET", secondBase.appendingPathComponent("demo/\(client)/messaging/registrations/my-phone"))
        #expect(again.status == 200)
        second.process.terminate()
        _ = try await second.waitForExit()

        let listed = try await HeraldProcess.run(["keys"], directory: scratch.url)
        #expect(listed.code == 0)
        #expect(listed.stdout.contains("demo client \(client)"))
    }

    @Test func aBadConfigurationStopsStartUpWithOneLine() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let badRole = try scratch.write("role.json", #"{"apps": [{"id": "a", "keys": [{"key": "k", "role": "root"}]}]}"#)
        let duplicate = try scratch.write("dup.json", #"{"apps": [{"id": "a", "keys": [{"key": "k", "role": "client"}]}, {"id": "a", "keys": [{"key": "j", "role": "client"}]}]}"#)
        let cases: [([String], String)] = [
            (["serve", "--config", scratch.path("missing.json")], "cannot be read"),
            (["serve", "--config", badRole, "--port", "0"], "unknown role 'root'"),
            (["serve", "--config", duplicate, "--port", "0"], "duplicate app id 'a'"),
            (["serve", "--port", "0", "--database", "sqlite:///nonexistent-dir/h.sqlite"], "not writable"),
            // Nothing listens on port 1: refused at once, one line, no password shown.
            (["serve", "--port", "0", "--database", "postgres://herald:s3cret@127.0.0.1:1/herald?sslmode=disable"],
             "database postgres://herald:***@127.0.0.1:1/herald cannot be reached"),
            (["migrate", "--database", "postgres://herald@127.0.0.1:1/herald?sslmode=disable"], "cannot be reached"),
            (["serve", "--port", "0", "--database", "postgres://herald@127.0.0.1/herald?sslmode=sometimes"], "sslmode must be one of"),
        ]
        for (arguments, expected) in cases {
            let result = try await HeraldProcess.run(arguments, directory: scratch.url)
            #expect(result.code != 0, "\(arguments)")
            #expect(Self.problemLines(result.stderr).count == 1, "one line for \(arguments): \(result.stderr)")
            #expect(result.stderr.contains(expected), "\(arguments): \(result.stderr)")
            #expect(!result.stderr.contains("s3cret"), "\(arguments): \(result.stderr)")
        }
    }

    @Test func aPortInUseStopsStartUpWithOneLine() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let first = try HeraldProcess(["serve", "--port", "0", "--database", "sqlite://" + scratch.path("a.sqlite")])
        let base = try await first.waitUntilListening()
        let port = try #require(base.port)
        let second = try await HeraldProcess.run(["serve", "--port", "\(port)", "--database", "sqlite://" + scratch.path("b.sqlite")])
        #expect(second.code != 0)
        #expect(Self.problemLines(second.stderr).count == 1, "\(second.stderr)")
        #expect(second.stderr.contains("cannot listen on 127.0.0.1:\(port): address already in use"))
        first.process.terminate()
        _ = try await first.waitForExit()
    }

    /// stderr without the ordinary log lines (timestamped), which may precede the failure.
    static func problemLines(_ stderr: String) -> [Substring] {
        let lines = stderr.split(separator: "\n")
        let problems = lines.filter { !($0.first?.isNumber ?? false) }
        #expect(problems.allSatisfy { $0.hasPrefix("herald: ") }, "\(problems)")
        return problems
    }

    @Test func sweepAndMigrateCommands() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let database = "sqlite://" + scratch.path("ops.sqlite")
        let migrated = try await HeraldProcess.run(["migrate", "--database", database])
        #expect(migrated.code == 0, "\(migrated.stderr)")
        #expect(migrated.stdout.contains("up to date"))

        // Three registrations that expired a moment ago, one that has not.
        let backend = try await HeraldRuntime.openMigrated(try DatabaseURL(parsing: database), logger: Logger(label: "t"))
        let store = SQLRegistrationStore(backend: backend)
        let past = SystemClock().now.adding(milliseconds: -10_000)
        for (index, expires) in [past.adding(milliseconds: 1), past.adding(milliseconds: 2), past.adding(milliseconds: 3), nil].enumerated() {
            let request = RegistrationRequest(
                deviceId: try DeviceID(validating: "d\(index)"), deviceToken: try DeviceToken(validating: "ab", os: .ios),
                os: .ios, osVersion: nil, channels: [], expiration: expires.map(Expiration.init(timestamp:)))
            _ = try await store.register(app: "shop", request, now: past)
        }
        try await backend.close()

        let swept = try await HeraldProcess.run(["sweep", "--database", database])
        #expect(swept.code == 0, "\(swept.stderr)")
        #expect(swept.stdout.hasPrefix("removed 3 expired registrations"))
        let again = try await HeraldProcess.run(["sweep", "--database", database])
        #expect(again.stdout.hasPrefix("removed 0 expired registrations"))
    }
}
