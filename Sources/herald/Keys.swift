import ArgumentParser
import Foundation
import Herald
import HeraldCore
import HeraldStore
import HeraldWebPush

/// `herald keys`: the demo app's stored keys, or (`--generate`) a fresh set for a configuration file, or
/// (`--vapid FILE`) an app's Web Push key pair.
struct Keys: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the demo app's API keys (demo mode), or generate keys for a configuration file.",
        discussion: """
            Without options it prints one line per key. --env prints them as a shell line to eval \
            (export APP='…' CLIENT='…' SERVER='…' ADMIN='…'). --generate touches no database: it prints \
            a new app entry, with three random keys, for the "apps" list of a configuration file. \
            --vapid FILE writes a new VAPID key pair for an app's webPush block to FILE (readable by its \
            owner only) and prints the public key web pages subscribe with; when FILE exists it is not \
            changed, and its public key is printed.
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

    @Option(
        name: .long, help: "Write a new Web Push (VAPID) key pair to this PEM file, or read the existing one; print its public key.")
    var vapid: String?

    func validate() throws {
        if vapid != nil && (generate || database != nil || env || app != nil) {
            throw ValidationError("--vapid makes or reads one key file; leave out the other options")
        }
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
        if let vapid {
            try await reportingFailures { try Self.vapidKey(file: vapid) }
            return
        }
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

    /// Writes a new VAPID key to `file` unless it exists, then prints the file's public key and the block
    /// that uses it.
    static func vapidKey(file: String) throws {
        var created = false
        if !FileManager.default.fileExists(atPath: file) {
            let pem = VAPIDKey.newPrivateKeyPEM()
            // Created readable by its owner only, before the key is written into it.
            guard FileManager.default.createFile(atPath: file, contents: nil, attributes: [.posixPermissions: 0o600]),
                let handle = FileHandle(forWritingAtPath: file)
            else { throw StartupError("cannot create \(file)") }
            try handle.write(contentsOf: Data(pem.utf8))
            try handle.close()
            created = true
        }
        let publicKey: String
        do {
            publicKey = try VAPIDKey.applicationServerKey(pemFile: file)
        } catch {
            throw StartupError(error.message)
        }
        print(
            created
                ? "Wrote a new VAPID key pair to \(file) (keep it: browsers subscribe to its public key)."
                : "\(file) exists; its key is unchanged.")
        print("")
        print("applicationServerKey (for pushManager.subscribe in the page):")
        print("  \(publicKey)")
        print("")
        print("The app's block in the configuration file:")
        print("  \"webPush\": {\"privateKeyFile\": \"\(file)\", \"subject\": \"mailto:you@example.com\"}")
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
