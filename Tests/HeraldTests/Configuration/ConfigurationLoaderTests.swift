import Foundation
import Herald
import HeraldAPNs
import HeraldCore
import HeraldDeviceCheck
import HeraldDispatch
import HeraldFCM
import HeraldStore
import HeraldTestSupport
import HeraldWebhooks
import Logging
import Testing

@Suite struct ConfigurationLoaderTests {
    static let example = """
        {"http": {"host": "0.0.0.0", "port": 9090},
         "database": {"url": "sqlite:///var/lib/herald/herald.sqlite"},
         "sweeper": {"intervalSeconds": 30, "batchSize": 500},
         "apps": [{"id": "shop", "keys": [{"key": "k-client", "role": "client"},
                                         {"key": "k-server", "role": "server"},
                                         {"key": "k-admin",  "role": "admin"}]},
                  {"id": "blog", "keys": [{"key": "b-admin", "role": "admin"}]}]}
        """

    func withFile<T>(_ contents: String, _ body: (String) throws -> T) throws -> T {
        let scratch = try Scratch()
        defer { scratch.remove() }
        return try body(try scratch.write("herald.json", contents))
    }

    func failure(_ contents: String, environment: [String: String] = [:]) throws -> String? {
        try withFile(contents) { path -> String? in
            do {
                _ = try ConfigurationLoader.load(file: path, environment: environment)
                return nil
            } catch {
                return "\(error)"
            }
        }
    }

    @Test func readsTheDocumentedFile() throws {
        let configuration = try withFile(Self.example) { try ConfigurationLoader.load(file: $0, environment: [:]) }
        #expect(configuration.http == .init(host: "0.0.0.0", port: 9090))
        #expect(configuration.database == .sqliteFile(path: "/var/lib/herald/herald.sqlite"))
        #expect(configuration.sweeper == .init(intervalSeconds: 30, batchSize: 500))
        #expect(configuration.apps.map(\.id) == ["shop", "blog"])
        #expect(
            configuration.apps[0].keys == [
                APIKey(key: "k-client", role: .client), APIKey(key: "k-server", role: .server),
                APIKey(key: "k-admin", role: .admin),
            ])
    }

    @Test func defaultsNeedNoConfigurationAtAll() throws {
        let configuration = try ConfigurationLoader.load(file: nil, environment: [:])
        #expect(configuration.http == .init(host: "127.0.0.1", port: 8080))
        #expect(configuration.database == .sqliteFile(path: "./herald.sqlite"))
        #expect(configuration.sweeper == .init(intervalSeconds: 60, batchSize: 1000))
        #expect(configuration.apps.isEmpty, "no apps: demo mode")
    }

    @Test func environmentOverridesTheFileAndFlagsOverrideBoth() throws {
        let environment = [
            "HERALD_HTTP_PORT": "7000", "HERALD_SWEEPER_INTERVAL_SECONDS": "5",
            "HERALD_DATABASE_URL": "sqlite:///tmp/env.sqlite", "HTTP_PORT": "1",
        ]
        let fromEnvironment = try withFile(Self.example) { try ConfigurationLoader.load(file: $0, environment: environment) }
        #expect(fromEnvironment.http.port == 7000)
        #expect(fromEnvironment.http.host == "0.0.0.0")
        #expect(fromEnvironment.sweeper.intervalSeconds == 5)
        #expect(fromEnvironment.database == .sqliteFile(path: "/tmp/env.sqlite"))
        let fromFlags = try withFile(Self.example) {
            try ConfigurationLoader.load(
                file: $0, environment: environment,
                overrides: .init(host: "::1", port: 6000, database: "sqlite::memory:"))
        }
        #expect(fromFlags.http == .init(host: "::1", port: 6000))
        #expect(fromFlags.database == .sqliteMemory)
    }

    @Test func emptyChannelDaysAndTheWriteQueueAreReadAndChecked() throws {
        let defaults = try ConfigurationLoader.load(file: nil, environment: [:])
        #expect(defaults.sweeper.emptyChannelDays == 0, "channels are kept, as Backendless keeps them")
        #expect(defaults.writeQueueLimit == 2048)
        let set = try ConfigurationLoader.load(
            file: nil, environment: ["HERALD_SWEEPER_EMPTY_CHANNEL_DAYS": "7.5", "HERALD_DATABASE_WRITE_QUEUE_LIMIT": "64"])
        #expect(set.sweeper.emptyChannelDays == 7.5)
        #expect(set.writeQueueLimit == 64)
        for environment in [["HERALD_SWEEPER_EMPTY_CHANNEL_DAYS": "-1"], ["HERALD_DATABASE_WRITE_QUEUE_LIMIT": "0"]] {
            #expect(throws: ConfigurationError.self) { try ConfigurationLoader.load(file: nil, environment: environment) }
        }
    }

    @Test func drainSecondsIsReadAndChecked() throws {
        #expect(try ConfigurationLoader.load(file: nil, environment: [:]).http.drainSeconds == 0)
        let set = try ConfigurationLoader.load(file: nil, environment: ["HERALD_HTTP_DRAIN_SECONDS": "7.5"])
        #expect(set.http.drainSeconds == 7.5)
        #expect(throws: ConfigurationError.self) {
            try ConfigurationLoader.load(file: nil, environment: ["HERALD_HTTP_DRAIN_SECONDS": "301"])
        }
    }

    @Test func metricsAndConnectionCapAreReadAndChecked() throws {
        let defaults = try ConfigurationLoader.load(file: nil, environment: [:])
        #expect(defaults.metrics == .init() && defaults.metrics.port == nil && defaults.metrics.bearerToken == nil)
        #expect(defaults.http.maxConnections == 1000)
        let set = try ConfigurationLoader.load(
            file: nil,
            environment: [
                "HERALD_METRICS_PORT": "9100", "HERALD_METRICS_HOST": "0.0.0.0",
                "HERALD_METRICS_BEARER_TOKEN": "a-long-enough-token", "HERALD_HTTP_MAX_CONNECTIONS": "64",
            ])
        #expect(set.metrics == .init(port: 9100, host: "0.0.0.0", bearerToken: "a-long-enough-token"))
        #expect(set.http.maxConnections == 64)
        #expect(try ConfigurationLoader.load(file: nil, environment: ["HERALD_METRICS_ENABLED": "false"]).metrics.enabled == false)
        let scratch = try Scratch()
        defer { scratch.remove() }
        let tokenFile = scratch.path("metrics-token")
        try Data("from-a-file-0123456789\n".utf8).write(to: URL(fileURLWithPath: tokenFile))
        let fromFile = try ConfigurationLoader.load(file: nil, environment: ["HERALD_METRICS_BEARER_TOKEN_FILE": tokenFile])
        #expect(fromFile.metrics.bearerToken == "from-a-file-0123456789")
        for (environment, expected) in [
            (["HERALD_METRICS_PORT": "8080"], "metrics.port 8080 is http.port too"),
            (["HERALD_METRICS_HOST": "0.0.0.0"], "metrics.host needs metrics.port"),
            (["HERALD_METRICS_BEARER_TOKEN": "short"], "at least 16 characters"),
            (["HERALD_METRICS_BEARER_TOKEN_FILE": scratch.path("none")], "cannot be read"),
            (["HERALD_HTTP_MAX_CONNECTIONS": "0"], "http.maxConnections"),
            (["HERALD_METRICS_ENABLED": "sometimes"], "metrics.enabled must be true or false"),
        ] {
            #expect(throws: ConfigurationError.self) { try ConfigurationLoader.load(file: nil, environment: environment) }
            do {
                _ = try ConfigurationLoader.load(file: nil, environment: environment)
            } catch {
                #expect(String(describing: error).contains(expected), "\(error)")
            }
        }
    }

    /// `http.publicURL`: scheme and host (a trailing `/` dropped), from the file or `HERALD_HTTP_PUBLIC_URL`;
    /// anything with a path, a query, a user or another scheme stops start-up naming the setting.
    @Test func thePublicURLIsReadAndChecked() throws {
        #expect(try ConfigurationLoader.load(file: nil, environment: [:]).http.publicURL == nil)
        for (given, expected) in [
            ("https://push.example.com", "https://push.example.com"), ("https://push.example.com/", "https://push.example.com"),
            ("http://10.0.0.7:8080", "http://10.0.0.7:8080"), ("https://[2001:db8::1]:443/", "https://[2001:db8::1]:443"),
        ] {
            let loaded = try ConfigurationLoader.load(file: nil, environment: ["HERALD_HTTP_PUBLIC_URL": given])
            #expect(loaded.http.publicURL?.description == expected, "\(given)")
        }
        let fromFile = try withFile(
            #"{"http": {"publicURL": "https://rt.example.com/"}, "apps": [{"id": "a", "keys": [{"key": "k-0123456789", "role": "client"}]}]}"#
        ) {
            try ConfigurationLoader.load(file: $0, environment: [:])
        }
        #expect(fromFile.http.publicURL == PublicURL(scheme: .https, authority: "rt.example.com"))
        for bad in [
            "push.example.com", "ftp://push.example.com", "https://", "https://push.example.com/rt", "https://push.example.com?x=1",
            "https://push.example.com#top", "https://user@push.example.com", "https://push.example.com:0", "https://push.example.com:70000",
            "https://push example.com", "https://[::1", "https://push.example.com//",
        ] {
            do {
                _ = try ConfigurationLoader.load(file: nil, environment: ["HERALD_HTTP_PUBLIC_URL": bad])
                Issue.record("\(bad) was accepted")
            } catch {
                #expect("\(error)".contains("http.publicURL"), "\(bad): \(error)")
            }
        }
    }

    @Test func appsCanComeFromTheEnvironment() throws {
        let configuration = try ConfigurationLoader.load(
            file: nil,
            environment: [
                "HERALD_APPS_0_ID": "env-app", "HERALD_APPS_0_KEYS_0_KEY": "secret", "HERALD_APPS_0_KEYS_0_ROLE": "server",
            ])
        #expect(configuration.apps == [AppConfiguration(id: "env-app", keys: [APIKey(key: "secret", role: .server)])])
    }

    @Test func badConfigurationsAreOneClearLine() throws {
        let unknownRole = try failure(#"{"apps": [{"id": "shop", "keys": [{"key": "k", "role": "superuser"}]}]}"#)
        #expect(unknownRole?.contains("unknown role 'superuser'") == true)
        let duplicate = try failure(
            #"{"apps": [{"id": "a", "keys": [{"key": "k", "role": "client"}]}, {"id": "a", "keys": [{"key": "j", "role": "admin"}]}]}"#)
        #expect(duplicate?.contains("duplicate app id 'a'") == true)
        #expect(try failure("{not json")?.contains("is not valid JSON") == true)
        #expect(try failure(#"{"http": {"port": "eighty"}}"#)?.contains("http.port") == true)
        #expect(try failure(#"{"http": {"port": 70000}}"#)?.contains("http.port") == true)
        #expect(try failure(#"{"database": {"url": "mysql://x"}}"#)?.contains("unsupported scheme") == true)
        #expect(try failure(#"{"apps": [{"id": "a", "keys": []}]}"#)?.contains("has no keys") == true)
        for message in [unknownRole, duplicate].compactMap({ $0 }) { #expect(!message.contains("\n")) }
    }

    /// A key Herald does not read is refused, with the known key it most likely meant.
    @Test(arguments: [
        (#"{"htttp": {"port": 9999}}"#, "unknown key 'htttp' (did you mean 'http'?)"),
        (#"{"app": []}"#, "unknown key 'app' (did you mean 'apps'?)"),
        (#"{"http": {"prot": 1}}"#, "unknown key 'http.prot' (did you mean 'http.port'?)"),
        (
            #"{"apps": [{"id": "a", "keys": [{"key": "k", "role": "client"}], "apns": {"teamID": "T"}}]}"#,
            "unknown key 'apps[0].apns.teamID' (did you mean 'apps[0].apns.teamId'?)"
        ),
        (
            #"{"apps": [{"id": "a", "keys": [{"key": "k", "roles": "client"}]}]}"#,
            "unknown key 'apps[0].keys[0].roles' (did you mean 'apps[0].keys[0].role'?)"
        ),
        (#"{"dispatcher": {"pageSise": 10}}"#, "unknown key 'dispatcher.pageSise' (did you mean 'dispatcher.pageSize'?)"),
        (#"{"database": {"poolsize": 4}}"#, "unknown key 'database.poolsize' (did you mean 'database.poolSize'?)"),
        (#"{"HTTP": {}}"#, "unknown key 'HTTP' (did you mean 'http'?)"),
        (#"{"databse": {}}"#, "unknown key 'databse' (did you mean 'database'?)"),
        (#"{"sweep": {}}"#, "unknown key 'sweep' (did you mean 'sweeper'?)"),
        (
            #"{"tracing": {"port": 9100}}"#,
            "unknown key 'tracing' (known keys there: apps, console, database, dispatcher, history, http, log, messages, metrics, pubsub, rt, stats, sweeper)"
        ),
        (#"{"http": 8080}"#, "'http' must be an object ({…}), not a number"),
        (#"{"apps": {"id": "a"}}"#, "'apps' must be a list ([…]), not an object"),
        (#"{"http": {"port": {"value": 1}}}"#, "'http.port' must be a single value, not an object"),
        (#"[1, 2]"#, "'the file' must be an object ({…}), not a list"),
        // An entry the loader would stop reading at must not drop the ones after it silently.
        (
            #"{"apps": [{"id": "a", "keys": [{"key": "k", "role": "client"}]}, {"keys": [{"key": "j", "role": "client"}]}]}"#,
            "'apps[1]' has no 'id'"
        ),
        (
            #"{"apps": [{"id": "a", "keys": [{"key": "k", "role": "client"}, null, {"key": "j", "role": "admin"}]}]}"#,
            "'apps[0].keys[1]' is null; leave it out of the list instead"
        ),
        (#"{"apps": [{"id": "a", "keys": [{"key": "k"}]}]}"#, "'apps[0].keys[0]' has no 'role'"),
        (#"{"apps": [{"id": "a"}]}"#, "'apps[0]' has no 'keys'"),
    ])
    func unknownKeysAndWrongShapesAreRefusedWithTheNearestKey(_ contents: String, _ expected: String) throws {
        let message = try #require(try failure(contents))
        #expect(message.hasPrefix("configuration file '"), "\(message)")
        #expect(message.hasSuffix(expected), "\(message)")
    }

    @Test func commentKeysAreSkippedAndNullMeansNotSet() throws {
        let configuration = try withFile(
            #"""
            {"//": "Herald's configuration", "http": {"//port": 1, "port": 9000, "host": null},
             "apps": [{"id": "a", "keys": [{"key": "k", "role": "client"}],
                       "//apns": {"environment": "production", "topic": "com.example.a"}}]}
            """#
        ) { try ConfigurationLoader.load(file: $0, environment: [:]) }
        #expect(configuration.http == .init(host: "127.0.0.1", port: 9000))
        #expect(configuration.apps == [AppConfiguration(id: "a", keys: [APIKey(key: "k", role: .client)])], "a commented apns block is off")
    }

    /// Demo mode generates keys: it runs only when no configuration file is given, never because a file lacks apps.
    @Test func aFileWithoutAppsIsRefusedRatherThanStartingDemoMode() throws {
        for contents in [#"{"http": {"port": 9000}}"#, #"{"apps": []}"#, "{}"] {
            #expect(try failure(contents)?.contains("defines no apps") == true, "\(contents)")
        }
        let fromEnvironment = try withFile("{}") {
            try ConfigurationLoader.load(
                file: $0,
                environment: [
                    "HERALD_APPS_0_ID": "e", "HERALD_APPS_0_KEYS_0_KEY": "k",
                    "HERALD_APPS_0_KEYS_0_ROLE": "client",
                ])
        }
        #expect(fromEnvironment.apps.map(\.id) == ["e"], "apps from the environment count")
    }

    @Test func theExamplesPlaceholderKeysAreRefused() throws {
        let message = try failure(
            #"{"apps": [{"id": "shop", "keys": [{"key": "replace-with-a-long-random-client-key", "role": "client"}]}]}"#)
        #expect(message?.contains("still the example's placeholder") == true, "\(message ?? "accepted")")
        let shipped = FixtureFiles.path("deploy/herald.json")
        #expect(throws: ConfigurationError.self, "deploy/herald.json as shipped must not serve") {
            _ = try ConfigurationLoader.load(file: shipped, environment: [:])
        }
    }

    /// An apns block holding only a passphrase is an apns block (and an incomplete one), not nothing.
    @Test func anAPNsBlockWithAnyKnownKeyIsRead() throws {
        let message = try failure(#"{"apps": [{"id": "a", "keys": [{"key": "k", "role": "client"}], "apns": {"passphrase": "x"}}]}"#)
        #expect(message?.contains("app 'a' apns:") == true, "\(message ?? "accepted")")
    }

    /// The fcm block: read with its defaults, and each wrong value stopped with one line naming it.
    @Test func anFCMBlockIsCheckedAtStartUp() throws {
        let account = FixtureFiles.path("fixtures/fcm/service-account.json")
        func app(_ fcm: String) -> String { #"{"apps": [{"id": "a", "keys": [{"key": "k", "role": "server"}], "fcm": \#(fcm)}]}"# }
        let configuration = try withFile(app(#"{"serviceAccountFile": "\#(account)"}"#)) {
            try ConfigurationLoader.load(file: $0, environment: [:])
        }
        #expect(configuration.apps.first?.fcm == FCMAppConfiguration(serviceAccountFile: account))
        #expect(configuration.apps.first?.apns == nil)
        let missing = try failure(app(#"{"connections": 2}"#))
        #expect(missing?.contains("app 'a' fcm: serviceAccountFile") == true, "\(missing ?? "accepted")")
        let unreadable = try failure(app(#"{"serviceAccountFile": "/nonexistent/sa.json"}"#))
        #expect(
            unreadable?.contains("app 'a' fcm:") == true && unreadable?.contains("/nonexistent/sa.json") == true,
            "\(unreadable ?? "accepted")")
        let notAnAccount = try failure(app(#"{"serviceAccountFile": "\#(FixtureFiles.keyFile())"}"#))
        #expect(notAnAccount?.contains("app 'a' fcm:") == true, "\(notAnAccount ?? "accepted")")
        let streams = try failure(app(#"{"serviceAccountFile": "\#(account)", "streamsPerConnection": 0}"#))
        #expect(streams?.contains("streamsPerConnection must be between 1 and 1000") == true, "\(streams ?? "accepted")")
        let idle = try failure(app(#"{"serviceAccountFile": "\#(account)", "idleReconnectSeconds": 0}"#))
        #expect(idle?.contains("idleReconnectSeconds must be between 1 and 86400") == true, "\(idle ?? "accepted")")
        let typo = try failure(app(#"{"serviceAccount": "\#(account)"}"#))
        #expect(typo?.contains("did you mean 'apps[0].fcm.serviceAccountFile'") == true, "\(typo ?? "accepted")")
    }

    /// The deviceCheck block: read with its defaults, and each wrong value stopped with one line naming it.
    @Test func aDeviceCheckBlockIsCheckedAtStartUp() throws {
        let key = FixtureFiles.keyFile()
        func app(_ block: String) -> String {
            #"{"apps": [{"id": "a", "keys": [{"key": "k", "role": "server"}], "deviceCheck": \#(block)}]}"#
        }
        let configuration = try withFile(app(#"{"teamId": "TESTTEAM01", "keyId": "TESTKEY001", "privateKeyFile": "\#(key)"}"#)) {
            try ConfigurationLoader.load(file: $0, environment: [:])
        }
        #expect(
            configuration.apps.first?.deviceCheck
                == DeviceCheckAppConfiguration(environment: .production, teamID: "TESTTEAM01", keyID: "TESTKEY001", privateKeyFile: key))
        let development = try withFile(
            app(#"{"environment": "development", "teamId": "T", "keyId": "K", "privateKeyFile": "\#(key)"}"#)
        ) { try ConfigurationLoader.load(file: $0, environment: [:]) }
        #expect(development.apps.first?.deviceCheck?.environment.baseURL == "https://api.development.devicecheck.apple.com")
        let cases: [(String, String)] = [
            (#"{"keyId": "K", "privateKeyFile": "\#(key)"}"#, "teamId, keyId and privateKeyFile"),
            (#"{"teamId": "T", "keyId": "K", "privateKeyFile": "/nonexistent/k.p8"}"#, "/nonexistent/k.p8"),
            (#"{"teamId": "T", "keyId": "K", "privateKeyFile": "\#(FixtureFiles.caFile)"}"#, "not a P-256 private key"),
            (#"{"environment": "custom", "teamId": "T", "keyId": "K", "privateKeyFile": "\#(key)"}"#, "needs a url"),
            (
                #"{"environment": "staging", "teamId": "T", "keyId": "K", "privateKeyFile": "\#(key)"}"#,
                "environment must be one of production, development or custom, not 'staging'"
            ),
            (
                #"{"environment": "custom", "url": "https://localhost:1", "caFile": "/nonexistent/ca.crt", "teamId": "T", "keyId": "K", "privateKeyFile": "\#(key)"}"#,
                "caFile '/nonexistent/ca.crt' cannot be read"
            ),
            (#"{"teamId": "T", "keyId": "K", "privateKeyFile": "\#(key)", "connections": 0}"#, "connections must be between 1 and 16"),
            (#"{"teamID": "T"}"#, "did you mean 'apps[0].deviceCheck.teamId'"),
        ]
        for (block, expected) in cases {
            let message = try failure(app(block))
            #expect(message?.contains(expected) == true, "\(block): \(message ?? "accepted")")
            if !expected.hasPrefix("did you mean") {
                #expect(message?.contains("app 'a' deviceCheck:") == true, "\(block): \(message ?? "accepted")")
            }
        }
    }

    /// A HERALD_* variable that names no setting is refused like an unknown key; the ones that are settings,
    /// and those of the build, tests and benchmarks, pass.
    @Test func unknownEnvironmentSettingsAreRefusedWithTheNearestName() throws {
        func load(_ environment: [String: String]) -> String? {
            do {
                _ = try ConfigurationLoader.load(file: nil, environment: environment)
                return nil
            } catch {
                return error.description
            }
        }
        #expect(
            load(["HERALD_HTTP_PROT": "1"])
                == "configuration: environment variable HERALD_HTTP_PROT is not a Herald setting (did you mean HERALD_HTTP_PORT?)")
        #expect(load(["HERALD_SWEEPER_INTERVALSECONDS": "5"])?.contains("did you mean HERALD_SWEEPER_INTERVAL_SECONDS?") == true)
        #expect(load(["HERALD_APPS_0_KEYS_0_ROLLE": "client"])?.contains("did you mean HERALD_APPS_N_KEYS_N_ROLE?") == true)
        #expect(load(["HERALD_NOTHING_LIKE_IT": "x"])?.hasSuffix("is not a Herald setting") == true)
        #expect(
            load([
                "HERALD_HTTP_PORT": "7000", "HERALD_DATABASE_POOL_SIZE": "4", "HERALD_DISPATCHER_PAGE_SIZE": "100",
                "HERALD_APPS_0_APNS_CA_FILE": "", "HERALD_LOG_LEVEL": "debug", "HERALD_WARNINGS_AS_ERRORS": "1",
                "HERALD_TEST_POSTGRES_URL": "x", "HERALD_BENCH_PORT": "1", "HERALD_BENCH": "1", "PATH": "/bin",
            ]) == nil)
    }

    @Test func theDeliveryHistoryCanBeSwitchedOff() throws {
        let app = #""apps": [{"id": "a", "keys": [{"key": "k", "role": "client"}]}]"#
        #expect(try withFile("{\(app)}") { try ConfigurationLoader.load(file: $0, environment: [:]) }.dispatcher.recordHistory)
        let off = try withFile(#"{"history": {"enabled": false}, \#(app)}"#) { try ConfigurationLoader.load(file: $0, environment: [:]) }
        #expect(!off.dispatcher.recordHistory)
        #expect(try failure(#"{"history": {"enabled": "sometimes"}, \#(app)}"#)?.contains("history.enabled must be true or false") == true)
    }

    @Test func historyRetentionAndWebhooksAreRead() throws {
        let keys = #""keys": [{"key": "k", "role": "client"}]"#
        let loaded = try withFile(
            #"{"history": {"days": 7, "maxPerDevice": 20}, "apps": [{"id": "a", \#(keys), "webhook": {"url": "https://backend.example/hooks", "secret": "0123456789abcdef", "timeoutSeconds": 3}}]}"#
        ) { try ConfigurationLoader.load(file: $0, environment: [:]) }
        #expect(loaded.history == HistoryConfiguration(days: 7, maxPerDevice: 20))
        #expect(loaded.apps[0].webhook?.url == "https://backend.example/hooks" && loaded.apps[0].webhook?.timeoutMilliseconds == 3000)
        #expect(loaded.apps[0].webhook?.secret == "0123456789abcdef")
        let cases: [(String, String)] = [
            (#""webhook": {"url": "https://b.example/h"}"#, "app 'a' webhook: secret is missing"),
            (#""webhook": {"secret": "0123456789abcdef"}"#, "app 'a' webhook: url is missing"),
            (#""webhook": {"url": "ftp://b.example/h", "secret": "0123456789abcdef"}"#, "url must start with https://"),
            (#""webhook": {"url": "https://b.example/h", "secret": "short"}"#, "secret must be at least 16 characters"),
            (
                #""webhook": {"url": "https://b.example/h", "secret": "0123456789abcdef", "timeoutSeconds": 0}"#,
                "timeoutSeconds must be between 1 and 300"
            ),
            (
                #""webhook": {"url": "https://b.example/h", "secret": "0123456789abcdef", "caFile": "/nonexistent.pem"}"#,
                "caFile '/nonexistent.pem' cannot be read"
            ),
            (#""webhook": {"uri": "https://b.example/h"}"#, "did you mean 'apps[0].webhook.url'?"),
        ]
        for (block, expected) in cases {
            let message = try failure(#"{"apps": [{"id": "a", \#(keys), \#(block)}]}"#)
            #expect(message?.contains(expected) == true, "\(block): \(message ?? "loaded")")
        }
        #expect(
            try failure(#"{"history": {"days": 0}, "apps": [{"id": "a", \#(keys)}]}"#)?.contains("history.days must be between 1 and 3650")
                == true)
    }

    @Test func brokenJSONSaysWhere() throws {
        let message = try #require(try failure("{\n  \"http\": {\"port\": 80,}\n}"))
        #expect(message.hasSuffix("is not valid JSON: it breaks at line 2, column 23"), "\(message)")
        let unicode = try #require(try failure("{\"apps\": [{\"id\": \"café\" x}]}"))
        #expect(unicode.hasSuffix("line 1, column 25"), "columns count characters, not bytes: \(unicode)")
    }

    @Test func anUnreadableFileIsNamed() {
        do {
            _ = try ConfigurationLoader.load(file: "/nonexistent/herald.json", environment: [:])
            Issue.record("loaded a missing file")
        } catch {
            #expect(error.description.contains("'/nonexistent/herald.json' cannot be read"))
        }
    }

    @Test func anUnwritableDatabasePathStopsStartUp() async throws {
        do {
            _ = try await HeraldRuntime.openMigrated(.sqliteFile(path: "/nonexistent-dir/herald.sqlite"), logger: .init(label: "t"))
            Issue.record("opened a database in a missing directory")
        } catch let error as StartupError {
            #expect(error.description.contains("not writable"))
            #expect(error.description.contains("/nonexistent-dir/herald.sqlite"))
        }
    }
}

/// Per-app APNs settings: read, checked at start-up, and turned into a client configuration.
@Suite struct APNsConfigurationTests {
    static let keyFile = FixtureFiles.keyFile()
    static let caFile = URL(fileURLWithPath: keyFile).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("tls/ca.crt").path
    static let certificateFile = URL(fileURLWithPath: caFile).deletingLastPathComponent().appendingPathComponent("client.crt").path

    func app(_ apns: String) -> String {
        #"{"apps": [{"id": "shop", "keys": [{"key": "k", "role": "server"}], "apns": \#(apns)}]}"#
    }

    func load(_ contents: String, environment: [String: String] = [:]) throws -> HeraldConfiguration {
        try ConfigurationLoaderTests().withFile(contents) { try ConfigurationLoader.load(file: $0, environment: environment) }
    }

    @Test func theIssuesExampleIsReadWithDefaults() throws {
        let configuration = try load(
            app(
                #"{"environment": "production", "topic": "com.example.shop", "teamId": "ABCDE12345", "keyId": "KEY1234567", "privateKeyFile": "\#(Self.keyFile)", "connections": 2, "streamsPerConnection": 500}"#
            ))
        let apns = try #require(configuration.apps.first?.apns)
        #expect(
            apns
                == APNsAppConfiguration(
                    environment: .production, topic: "com.example.shop",
                    authentication: .token(teamID: "ABCDE12345", keyID: "KEY1234567", privateKeyFile: Self.keyFile),
                    connections: 2, streamsPerConnection: 500))
        let client = try apns.clientConfiguration()
        #expect(client.environment == .production)
        #expect(client.connections == 2 && client.streamsPerConnection == 500)
        #expect(client.maxInFlight == 2 * 1000, "a window on the wire and as many waiting")
        #expect(client.idleReconnect == .seconds(3600), "an idle connection is reused for an hour unless configured")
    }

    /// `idleReconnectSeconds` reaches each push client's configuration, from the file or the environment.
    @Test func theIdleReconnectReachesEachPushClient() throws {
        let apns = try #require(
            try load(
                app(#"{"topic": "t", "teamId": "T", "keyId": "K", "privateKeyFile": "\#(Self.keyFile)", "idleReconnectSeconds": 240}"#)
            ).apps.first?.apns)
        #expect(apns.idleReconnectSeconds == 240)
        #expect(try apns.clientConfiguration().idleReconnect == .seconds(240))
        let account = FixtureFiles.path("fixtures/fcm/service-account.json")
        let fcm = try #require(
            try load(
                #"{"apps": [{"id": "a", "keys": [{"key": "k", "role": "server"}], "fcm": {"serviceAccountFile": "\#(account)"}}]}"#,
                environment: ["HERALD_APPS_0_FCM_IDLE_RECONNECT_SECONDS": "90"]
            ).apps.first?.fcm)
        #expect(fcm.idleReconnectSeconds == 90)
        #expect(try fcm.clientConfiguration().idleReconnect == .seconds(90))
    }

    @Test func customEnvironmentAndCertificateAuth() throws {
        let configuration = try load(
            app(
                #"{"environment": "custom", "url": "https://localhost:2197", "caFile": "\#(Self.caFile)", "topic": "com.example.herald", "certificateFile": "\#(Self.certificateFile)"}"#
            ))
        let apns = try #require(configuration.apps.first?.apns)
        #expect(apns.environment == .custom(url: "https://localhost:2197", caFile: Self.caFile))
        #expect(apns.authentication == .certificate(certificateFile: Self.certificateFile, privateKeyFile: nil, passphrase: nil))
        #expect(apns.connections == 2 && apns.streamsPerConnection == 500)
    }

    @Test func anAppWithoutAPNsStillLoads() throws {
        let configuration = try load(#"{"apps": [{"id": "shop", "keys": [{"key": "k", "role": "server"}]}]}"#)
        #expect(configuration.apps.first?.apns == nil)
    }

    @Test func theEnvironmentCanGiveOrOverrideAPNsSettings() throws {
        let configuration = try load(
            app(#"{"topic": "com.example.shop", "teamId": "T", "keyId": "K", "privateKeyFile": "\#(Self.keyFile)"}"#),
            environment: ["HERALD_APPS_0_APNS_TOPIC": "com.example.other", "HERALD_APPS_0_APNS_CONNECTIONS": "4"])
        let apns = try #require(configuration.apps.first?.apns)
        #expect(apns.topic == "com.example.other")
        #expect(apns.connections == 4)
    }

    @Test func badAPNsSettingsStopStartUpWithOneLine() throws {
        let cases: [(String, String)] = [
            (
                #"{"environment": "staging", "topic": "t", "teamId": "T", "keyId": "K", "privateKeyFile": "\#(Self.keyFile)"}"#,
                "environment must be one of production, development or custom, not 'staging'"
            ),
            (#"{"environment": "custom", "topic": "t", "teamId": "T", "keyId": "K", "privateKeyFile": "\#(Self.keyFile)"}"#, "needs a url"),
            (#"{"teamId": "T", "keyId": "K", "privateKeyFile": "\#(Self.keyFile)"}"#, "topic"),
            (#"{"topic": "t", "teamId": "T", "privateKeyFile": "\#(Self.keyFile)"}"#, "teamId, keyId and privateKeyFile"),
            (#"{"topic": "t", "teamId": "T", "keyId": "K", "privateKeyFile": "/nonexistent/key.p8"}"#, "/nonexistent/key.p8"),
            (#"{"topic": "t", "teamId": "T", "keyId": "K", "privateKeyFile": "\#(Self.caFile)"}"#, "not a P-256 private key"),
            (#"{"topic": "t", "teamId": "T", "keyId": "K", "privateKeyFile": "\#(Self.keyFile)", "connections": 0}"#, "connections"),
            (
                #"{"topic": "t", "teamId": "T", "keyId": "K", "privateKeyFile": "\#(Self.keyFile)", "streamsPerConnection": 5000}"#,
                "streamsPerConnection"
            ),
            (#"{"topic": "t", "certificateFile": "/nonexistent/cert.pem"}"#, "/nonexistent/cert.pem"),
        ]
        for (apns, expected) in cases {
            let message = try ConfigurationLoaderTests().failure(app(apns))
            #expect(message?.contains("app 'shop' apns: ") == true, "\(apns)")
            #expect(message?.contains(expected) == true, "\(String(describing: message)) should mention \(expected)")
            #expect(message?.contains("\n") == false)
        }
    }
}
