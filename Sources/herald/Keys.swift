import ArgumentParser
import Herald
import HeraldCore
import HeraldStore

/// `herald keys`: the demo app's stored keys, or (`--generate`) a fresh set for a configuration file.
struct Keys: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the demo app's API keys (demo mode), or generate keys for a configuration file.",
        discussion: """
            Without options it prints one line per key. --env prints them as a shell line to paste \
            (export APP=… CLIENT=… SERVER=… ADMIN=…). --generate touches no database: it prints a new \
            app entry, with three random keys, for the "apps" list of a configuration file.
            """)

    @OptionGroup var common: CommonOptions

    @Flag(name: .long, help: "Print the keys as `export APP=… CLIENT=… SERVER=… ADMIN=…`, ready to paste into a shell.")
    var env = false

    @Flag(name: .long, help: "Generate a new app entry with three random keys for a configuration file (no database).")
    var generate = false

    @Option(name: .long, help: "With --generate: the app id to put in the entry.")
    var app = "shop"

    func validate() throws {
        if generate && (common.config != nil || common.database != nil) {
            throw ValidationError("--generate reads no configuration or database; leave out --config and --database")
        }
        // The id is the first segment of every route: keep it to characters a URL carries as they are.
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~")
        guard (1...64).contains(app.count), app.allSatisfy(allowed.contains) else {
            throw ValidationError("--app must be 1 to 64 of A-Z a-z 0-9 - . _ ~")
        }
    }

    func run() async throws {
        if generate {
            let keys = DemoApp.newKeys()
            print(env ? Self.exportLine(app: app, keys: keys) : Self.appEntry(app: app, keys: keys))
            return
        }
        try await reportingFailures {
            let configuration = try common.load()
            guard configuration.apps.isEmpty else {
                throw ConfigurationError("apps are configured, so there is no demo app; the keys are in your configuration")
            }
            let keys = try await withDatabase(configuration, mustExist: true) {
                try await SQLRegistrationStore(backend: $0).storedKeys(app: DemoApp.id)
            }
            guard !keys.isEmpty else { throw StartupError("no demo keys yet: run `herald serve` once to create them") }
            if env {
                print(Self.exportLine(app: DemoApp.id, keys: keys))
            } else {
                for key in keys { print("\(DemoApp.id) \(key.role.rawValue) \(key.key)") }
            }
        }
    }

    /// `export APP=demo CLIENT=… SERVER=… ADMIN=…`: the variables the README's examples use. Keys are
    /// hex with a role prefix, so nothing needs quoting.
    static func exportLine(app: String, keys: [APIKey]) -> String {
        var words = ["APP=\(app)"]
        for role in APIKeyRole.allCases {
            if let key = keys.first(where: { $0.role == role }) { words.append("\(role.rawValue.uppercased())=\(key.key)") }
        }
        return "export " + words.joined(separator: " ")
    }

    /// One element of the configuration file's `apps` list.
    static func appEntry(app: String, keys: [APIKey]) -> String {
        let lines = keys.map { "    {\"key\": \"\($0.key)\", \"role\": \"\($0.role.rawValue)\"}" }
        return "{\"id\": \"\(app)\", \"keys\": [\n" + lines.joined(separator: ",\n") + "\n]}"
    }
}
