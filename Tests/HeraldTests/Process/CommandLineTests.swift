import Foundation
import Herald
import HeraldCore
import HeraldStore
import HeraldTestSupport
import HeraldWebPush
import Logging
import SQLKit
import Testing

@testable import HeraldStore

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
        let keys = Dictionary(
            uniqueKeysWithValues: banner.split(separator: "\n").compactMap { line -> (String, String)? in
                let parts = line.split(separator: " ")
                guard parts.count == 2, ["client", "server", "admin"].contains(String(parts[0])) else { return nil }
                return (String(parts[0]), String(parts[1]))
            })
        #expect(keys.count == 3)
        let client = try #require(keys["client"])
        #expect(banner.contains("curl -s -X POST \(base.absoluteString)/demo/\(client)/messaging/registrations"))

        // The printed curl line works as printed.
        let answer = try await HTTP.send(
            "POST", base.appendingPathComponent("demo/\(client)/messaging/registrations"),
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

    @Test func aMistypedCommandNamesTheCommands() async throws {
        let typo = try await HeraldProcess.run(["serv"])
        #expect(typo.code == 1)
        #expect(
            typo.stderr
                == "herald: unknown command 'serv' (did you mean 'serve'?); the commands are serve, migrate, sweep, backup, restore, keys, demo, probe, schema (herald --help)\n"
        )
        let unknown = try await HeraldProcess.run(["frobnicate", "--port", "0"])
        #expect(unknown.code == 1)
        #expect(unknown.stderr.hasPrefix("herald: unknown command 'frobnicate'; the commands are serve"))
    }

    @Test func keysOnADatabaseWithoutTheDemoAppSaysWhy() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let database = "sqlite://" + scratch.path("configured.sqlite")
        #expect(try await HeraldProcess.run(["migrate", "--database", database]).code == 0)
        let keys = try await HeraldProcess.run(["keys", "--database", database])
        #expect(keys.code == 1)
        #expect(keys.stderr.contains("this database has no demo app"))
        #expect(keys.stderr.contains("configuration file"))
    }

    @Test func aBadConfigurationStopsStartUpWithOneLine() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let badRole = try scratch.write("role.json", #"{"apps": [{"id": "a", "keys": [{"key": "k", "role": "root"}]}]}"#)
        let duplicate = try scratch.write(
            "dup.json",
            #"{"apps": [{"id": "a", "keys": [{"key": "k", "role": "client"}]}, {"id": "a", "keys": [{"key": "j", "role": "client"}]}]}"#)
        let typo = try scratch.write(
            "typo.json", #"{"htttp": {"port": 9999}, "apps": [{"id": "a", "keys": [{"key": "k", "role": "client"}]}]}"#)
        let noApps = try scratch.write("app.json", #"{"app": [{"id": "a", "keys": [{"key": "k", "role": "client"}]}]}"#)
        let portOnly = try scratch.write("port.json", #"{"http": {"port": 0}}"#)
        let broken = try scratch.write("broken.json", "{\"apps\": [\n  {\"id\": \"a\" \"keys\": []}\n]}")
        let cases: [([String], String)] = [
            (["serve", "--config", scratch.path("missing.json")], "cannot be read"),
            (["serve", "--config", typo], "unknown key 'htttp' (did you mean 'http'?)"),
            // A misspelt "apps" must not start demo mode with generated keys, nor must a file without apps.
            (["serve", "--config", noApps, "--port", "0"], "unknown key 'app' (did you mean 'apps'?)"),
            (["serve", "--config", portOnly], "defines no apps"),
            (["serve", "--config", broken], "is not valid JSON: it breaks at line 2, column 14"),
            (
                ["serve", "--port", "0", "--host", "nosuchhost.invalid"],
                "cannot listen on nosuchhost.invalid:0: the host name does not resolve"
            ),
            (["serve", "--port", "0", "--host", "192.0.2.1"], "cannot listen on 192.0.2.1:0:"),
            (["serve", "--config", badRole, "--port", "0"], "unknown role 'root'"),
            (["serve", "--config", duplicate, "--port", "0"], "duplicate app id 'a'"),
            (["serve", "--port", "0", "--database", "sqlite:///nonexistent-dir/h.sqlite"], "not writable"),
            // Nothing listens on port 1: refused at once, one line, no password shown.
            (
                ["serve", "--port", "0", "--database", "postgres://herald:s3cret@127.0.0.1:1/herald?sslmode=disable"],
                "database postgres://herald:***@127.0.0.1:1/herald cannot be reached"
            ),
            (["migrate", "--database", "postgres://herald@127.0.0.1:1/herald?sslmode=disable"], "cannot be reached"),
            (["serve", "--port", "0", "--database", "postgres://herald@127.0.0.1/herald?sslmode=sometimes"], "sslmode must be one of"),
        ]
        for (arguments, expected) in cases {
            let result = try await HeraldProcess.run(arguments, directory: scratch.url)
            #expect(!FileManager.default.fileExists(atPath: scratch.path("herald.sqlite")), "\(arguments) created the default database")
            #expect(result.code == 1, "\(arguments)")
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
        #expect(!FileManager.default.fileExists(atPath: scratch.path("b.sqlite")), "the port is checked before the database is created")
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

    /// `herald demo` exits 0 only when Herald's counts agree with every mock (it checks them itself):
    /// a small fleet of iOS, Android and web devices, each platform's gone tokens removed; then a Live
    /// Activity started, updated and ended through a broadcast channel.
    @Test func theDemoSendsToAMixedFleetAndTheCountsAgree() async throws {
        let result = try await HeraldProcess.run(
            ["demo", "--devices", "300", "--fixtures", FixtureFiles.path("fixtures")], timeout: .seconds(120))
        #expect(result.code == 0, "\(result.stderr)")
        #expect(result.stdout.contains("150 IOS, 90 ANDROID, 60 WEB"), "\(result.stdout)")
        #expect(result.stdout.contains("sent iOS  Android      Web"), "\(result.stdout)")
        #expect(result.stdout.contains("The mock APNs agrees: 150 requests, 149 accepted, 1 answered"), "\(result.stdout)")
        #expect(result.stdout.contains("The mock FCM agrees: 90 sends, 89 accepted, 1 answered UNREGISTERED"), "\(result.stdout)")
        #expect(result.stdout.contains("The mock Web Push agrees: 60 pushes, 59 accepted and decrypted"), "\(result.stdout)")
        for os in ["IOS", "ANDROID", "WEB"] {
            #expect(result.stdout.contains("(\(os); its token was reported gone) → 404"), "\(result.stdout)")
        }
        // Live Activities: started per push-to-start token, updated and ended by one broadcast each.
        #expect(result.stdout.contains("20 sent, 0 failed (one per push-to-start token)"), "\(result.stdout)")
        #expect(result.stdout.contains("1 sent, 0 failed (the channel's one broadcast)"), "\(result.stdout)")
        #expect(result.stdout.contains("The mock APNs agrees: 20 push-to-start notifications to 20 tokens"), "\(result.stdout)")
    }

    @Test func sweepAndMigrateCommands() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let database = "sqlite://" + scratch.path("ops.sqlite")
        let migrated = try await HeraldProcess.run(["migrate", "--database", database])
        #expect(migrated.code == 0, "\(migrated.stderr)")
        #expect(migrated.stdout.contains("up to date"))

        // Three registrations in "news" that expired a moment ago, one in "sports" that has not; "news" was
        // already found empty long ago (as if its devices had left before), so it goes once they are swept.
        // Two idempotency keys from long ago, one from now.
        let backend = try await HeraldRuntime.openMigrated(try DatabaseURL(parsing: database), logger: Logger(label: "t"))
        let store = SQLRegistrationStore(backend: backend)
        let past = SystemClock().now.adding(milliseconds: -10_000)
        for (index, expires) in [past.adding(milliseconds: 1), past.adding(milliseconds: 2), past.adding(milliseconds: 3), nil].enumerated()
        {
            let request = RegistrationRequest(
                deviceId: try DeviceID(validating: "d\(index)"), deviceToken: try DeviceToken(validating: "ab", os: .ios),
                os: .ios, osVersion: nil, channels: [try ChannelName(validating: expires == nil ? "sports" : "news")],
                expiration: expires.map(Expiration.init(timestamp:)))
            _ = try await store.register(app: "shop", request, now: past)
        }
        try await backend.write { db in
            try await db.raw("UPDATE channels SET empty_since = 1 WHERE name = 'news'").run()
            for (key, at) in [("old-1", Int64(0)), ("old-2", Int64(0)), ("new", past.milliseconds)] {
                try await db.raw(
                    """
                    INSERT INTO idempotency_keys (app_id, idempotency_key, request_hash, message_id, status, body, created_at)
                    VALUES ('shop', \(bind: key), 'h', \(bind: "message:\(key)"), 200, '{}', \(bind: at))
                    """
                ).run()
            }
        }
        try await backend.close()

        // Every kind the sweeper removes is named, zeros too.
        let environment = ["HERALD_SWEEPER_EMPTY_CHANNEL_DAYS": "1"]
        let swept = try await HeraldProcess.run(["sweep", "--database", database], environment: environment)
        #expect(swept.code == 0, "\(swept.stderr)")
        #expect(
            swept.stdout.hasPrefix(
                "removed 3 expired registrations, 0 history entries, 0 finished messages, 1 empty channel, "
                    + "0 Live Activities no longer shown, 2 expired idempotency keys and 0 rows of delivery statistics folded or expired in "
            ),
            "\(swept.stdout)")
        #expect(
            (swept.stdout.hasSuffix(" ms\n") || swept.stdout.hasSuffix(" s\n")) && swept.stdout.split(separator: "\n").count == 1,
            "\(swept.stdout)")
        let again = try await HeraldProcess.run(["sweep", "--database", database], environment: environment)
        #expect(
            again.stdout.hasPrefix(
                "removed 0 expired registrations, 0 history entries, 0 finished messages, 0 empty channels, "
                    + "0 Live Activities no longer shown, 0 expired idempotency keys and 0 rows of delivery statistics folded or expired in "
            ),
            "\(again.stdout)")
    }

    /// `herald migrate` on a database a Herald before 0013 left, with messages 0013's backfill rewrites: piped,
    /// one line per migration once it is done (the backfill's with its rows), no carriage return, and no log
    /// line repeating each; run again, nothing pending, the one line it always printed. `herald serve` on such a
    /// database prints no progress: it logs one line per migration.
    @Test func migrateShowsEachMigrationOnALineOfItsOwnInALog() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let database = "sqlite://" + scratch.path("old.sqlite")
        let url = try DatabaseURL(parsing: database)
        try await Self.makeDatabaseBefore0013(url, messages: 3)
        let pending = Schema.migrations.map(\.name).filter { $0 >= "0013" }

        let migrated = try await HeraldProcess.run(["migrate", "--database", database])
        #expect(migrated.code == 0, "\(migrated.stderr)")
        #expect(!migrated.stdout.contains("\r") && !migrated.stdout.contains("\u{1B}"), "\(migrated.stdout)")
        let lines = migrated.stdout.split(separator: "\n").map(String.init)
        #expect(lines.dropLast().map { $0.prefix { $0 != " " } } == pending.map { Substring($0) }, "\(migrated.stdout)")
        #expect(lines.contains { $0.hasPrefix("0013_message_contents … 3 of 3 rows, ") && $0.hasSuffix(" s") }, "\(migrated.stdout)")
        #expect(lines.contains { $0.hasPrefix("0014_drop_apns_columns … ") && !$0.contains("rows") }, "\(migrated.stdout)")
        #expect(lines.last == "database \(url) is up to date")
        #expect(!migrated.stderr.contains("applied migration"), "\(migrated.stderr)")

        let again = try await HeraldProcess.run(["migrate", "--database", database])
        #expect(again.stdout == "database \(url) is up to date\n")

        let served = try DatabaseURL(parsing: "sqlite://" + scratch.path("served.sqlite"))
        try await Self.makeDatabaseBefore0013(served, messages: 3)
        let server = try HeraldProcess(["serve", "--port", "0", "--database", "\(served)"], directory: scratch.url)
        _ = try await server.waitUntilListening()
        server.process.terminate()
        #expect(try await server.waitForExit() == 0)
        #expect(!server.stdout.contains("0013_message_contents") && !server.stdout.contains("\r"), "\(server.stdout)")
        let logged = server.stderr.split(separator: "\n").filter { $0.contains("applied migration") }
        #expect(logged.count == pending.count, "\(server.stderr)")
        #expect(logged.first?.contains("herald.migration=0013_message_contents") == true, "\(server.stderr)")
        #expect(logged.first?.contains("herald.migration.rows=3") == true, "\(server.stderr)")
    }

    /// A SQLite database as a Herald before migration 0013 left it, with `messages` pushes in the old columns.
    static func makeDatabaseBefore0013(_ url: DatabaseURL, messages: Int) async throws {
        let backend = try await SQLiteBackend.open(url, logger: Logger(label: "t"))
        let before = Array(Schema.migrations.prefix { $0.name < "0013" })
        try await Migrator(backend: backend, migrations: before).migrate(logger: Logger(label: "t"))
        try await backend.write { db in
            for index in 0..<messages {
                try await db.raw(
                    """
                    INSERT INTO messages (id, app_id, channel, policy, broadcast, payload, push_type, status, created_at, updated_at)
                    VALUES (\(bind: "message:\(index)"), 'shop', 'news', 'PUSH', 7, '{"aps":{"alert":"hi"}}', 'alert',
                        'published', 0, 0)
                    """
                ).run()
            }
        }
        try await backend.close()
    }

    @Test func versionAndKeysForAShell() async throws {
        let version = try await HeraldProcess.run(["--version"])
        #expect(version.code == 0)
        #expect(version.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == HeraldVersion.current)

        // --generate needs no database: a fresh app entry that a configuration file accepts as it is.
        let scratch = try Scratch()
        defer { scratch.remove() }
        let generated = try await HeraldProcess.run(["keys", "--generate", "--app", "shop"], directory: scratch.url)
        #expect(generated.code == 0, "\(generated.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.url.path).isEmpty, "no database was created")
        let config = try scratch.write("herald.json", #"{"apps": ["# + generated.stdout + "]}")
        let loaded = try ConfigurationLoader.load(file: config, environment: [:])
        #expect(loaded.apps.map(\.id) == ["shop"])
        #expect(Set(loaded.apps[0].keys.map(\.role)) == [.client, .server, .admin])
        #expect(Set(loaded.apps[0].keys.map(\.key)).count == 3)

        // --env prints one line a shell can run, with the keys the server generated.
        let server = try HeraldProcess(["serve", "--port", "0"], directory: scratch.url)
        _ = try await server.waitUntilListening()
        server.process.terminate()
        _ = try await server.waitForExit()
        let listed = try await HeraldProcess.run(["keys"], directory: scratch.url)
        let exported = try await HeraldProcess.run(["keys", "--env"], directory: scratch.url)
        #expect(exported.code == 0, "\(exported.stderr)")
        let line = exported.stdout.trimmingCharacters(in: .newlines)
        #expect(!line.contains("\n"))
        let values = try ChildProcess.run("/bin/sh", ["-c", line + #"; printf '%s %s %s %s' "$APP" "$CLIENT" "$SERVER" "$ADMIN""#])
            .stdout.split(separator: " ")
        let printed = listed.stdout.split(separator: "\n").map { $0.split(separator: " ") }
        #expect(values.count == 4)
        #expect(values.first == "demo")
        for (role, value) in zip(["client", "server", "admin"], values.dropFirst()) {
            #expect(printed.contains { $0.count == 3 && $0[1] == role && $0[2] == value }, "\(role)")
        }
    }

    /// `herald keys --vapid FILE`: a new key readable by its owner only, its public key printed in the form a
    /// browser takes, a block that loads; run again, the file is kept and the same key printed.
    @Test func keysVapidWritesAKeyOnceAndPrintsItsPublicKey() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let file = scratch.path("vapid.pem")
        let first = try await HeraldProcess.run(["keys", "--vapid", file], directory: scratch.url)
        #expect(first.code == 0, "\(first.stderr)")
        let attributes = try FileManager.default.attributesOfItem(atPath: file)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        let key = try VAPIDKey.applicationServerKey(pemFile: file)
        #expect(key.count == 87, "65 bytes in URL-safe base64 without padding")
        #expect(first.stdout.contains(key))
        #expect(first.stdout.contains("Wrote a new VAPID key pair"))
        let again = try await HeraldProcess.run(["keys", "--vapid", file], directory: scratch.url)
        #expect(again.code == 0)
        #expect(again.stdout.contains("exists; its key is unchanged") && again.stdout.contains(key))
        let config = try scratch.write(
            "herald.json",
            #"{"apps": [{"id": "shop", "keys": [{"key": "k", "role": "client"}], "webPush": {"privateKeyFile": "\#(file)", "subject": "mailto:a@b.c"}}]}"#
        )
        #expect(try ConfigurationLoader.load(file: config, environment: [:]).apps[0].webPush?.privateKeyFile == file)
        let wrong = try await HeraldProcess.run(["keys", "--vapid", file, "--env"], directory: scratch.url)
        #expect(wrong.code != 0)
    }

    @Test func keysAndSweepRefuseADatabaseThatIsNotThere() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        for command in ["keys", "sweep"] {
            let result = try await HeraldProcess.run([command, "--database", "sqlite://" + scratch.path("typo.sqlite")])
            #expect(result.code == 1)
            #expect(Self.problemLines(result.stderr).count == 1, "\(result.stderr)")
            #expect(result.stderr.contains("does not exist"), "\(result.stderr)")
            #expect(!FileManager.default.fileExists(atPath: scratch.path("typo.sqlite")), "\(command) created the file")
        }
    }
}
