import ArgumentParser
import Foundation
import Herald
import HeraldCore
import HeraldStore

/// `herald keys`: the demo app's stored keys, or (`--generate`) a fresh set for a configuration file.
struct Keys: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the demo app's API keys (demo mode), or generate keys for a configuration file.",
        discussion: """
            Without options it prints one line per key. --env prints them as a shell line to eval \
            (export APP='…' CLIENT='…' SERVER='…' ADMIN='…'). --generate touches no database: it prints \
            a new app entry, with three random keys, for the "apps" list of a configuration file.
            """)

    // No --config: demo mode runs only without a configuration file, so a file never has demo keys.
    @Option(name: .long, help: "Database URL, e.g. sqlite:///var/lib/herald/herald.sqlite (default ./herald.sqlite).")
    var database: String?

    @Flag(name: .long, help: "Print the keys as `export APP=… CLIENT=… SERVER=… ADMIN=…`, ready to paste into a shell.")
    var env = false

    @Flag(name: .long, help: "Generate a new app entry with three random keys for a configuration file (no database).")
    var generate = false

    @Option(name: .long, help: "With --generate: the app id to put in the entry (default shop).")
    var app: String?

    func validate() throws {
        if generate && (database != nil || env) {
            throw ValidationError(
                "--generate prints an entry for a configuration file and reads no database; leave out --database and --env")
        }
        guard generate || app == nil else { throw ValidationError("--app goes with --generate") }
        let app = app ?? "shop"
        // The id is the first segment of every route: keep it to characters a URL carries as they are.
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~")
        guard (1...64).contains(app.count), app.allSatisfy(allowed.contains) else {
            throw ValidationError("--app must be 1 to 64 of A-Z a-z 0-9 - . _ ~")
        }
    }

    func run() async throws {
        if generate {
            print(Self.appEntry(app: app ?? "shop", keys: DemoApp.newKeys()))
            return
        }
        try await reportingFailures {
            let configuration = try ConfigurationLoader.load(file: nil, overrides: .init(database: database))
            guard configuration.apps.isEmpty else {
                throw ConfigurationError("apps are configured, so there is no demo app; the keys are in your configuration")
            }
            let keys = try await withDatabase(configuration, mustExist: true) {
                try await SQLRegistrationStore(backend: $0).storedKeys(app: DemoApp.id)
            }
            guard !keys.isEmpty else {
                throw StartupError(
                    "this database has no demo app: run `herald serve` on it once without --config to create one; "
                        + "a database used with a configuration file has its apps' keys in that file")
            }
            if env {
                print(Self.exportLine(app: DemoApp.id, keys: keys))
            } else {
                for key in keys { print("\(DemoApp.id) \(key.role.rawValue) \(key.key)") }
            }
        }
    }

    /// `export APP='demo' CLIENT='…' SERVER='…' ADMIN='…'`: the variables the README's examples use,
    /// single-quoted so a shell takes them as they are.
    static func exportLine(app: String, keys: [APIKey]) -> String {
        func quoted(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'" }
        var words = ["APP=\(quoted(app))"]
        for role in APIKeyRole.allCases {
            if let key = keys.first(where: { $0.role == role }) { words.append("\(role.rawValue.uppercased())=\(quoted(key.key))") }
        }
        return "export " + words.joined(separator: " ")
    }

    /// One element of the configuration file's `apps` list.
    static func appEntry(app: String, keys: [APIKey]) -> String {
        let lines = keys.map { "    {\"key\": \"\($0.key)\", \"role\": \"\($0.role.rawValue)\"}" }
        return "{\"id\": \"\(app)\", \"keys\": [\n" + lines.joined(separator: ",\n") + "\n]}"
    }
}
