import Configuration
import Foundation
import HeraldAPNs
import HeraldCore
import HeraldDeviceCheck
import HeraldDispatch
import HeraldFCM
import HeraldStore
import HeraldWebhooks
import Logging

/// Reads `HeraldConfiguration` through swift-configuration: command-line flags win over `HERALD_*`
/// environment variables, which win over the JSON file, which wins over the defaults.
///
/// The file is flattened into keys by hand (`apps.0.keys.1.role`) because the stock JSON provider
/// cannot hold arrays of objects; every value is read as a string and converted here, so a wrong
/// type becomes one clear line instead of a silently ignored setting.
public enum ConfigurationLoader {
    /// Settings given as command-line flags.
    public struct Overrides: Sendable {
        public var host: String?
        public var port: Int?
        public var database: String?

        public init(host: String? = nil, port: Int? = nil, database: String? = nil) {
            self.host = host
            self.port = port
            self.database = database
        }
    }

    public static func load(
        file: String?, environment: [String: String] = ProcessInfo.processInfo.environment,
        overrides: Overrides = Overrides()
    ) throws(ConfigurationError) -> HeraldConfiguration {
        var fileValues: [AbsoluteConfigKey: ConfigValue] = [:]
        if let file { fileValues = try flatten(try readJSON(file)) }
        do {
            try ConfigurationSchema.file.checkEnvironment(environment)
        } catch {
            throw ConfigurationError("configuration: \(error.text)")
        }
        var flagValues: [AbsoluteConfigKey: ConfigValue] = [:]
        if let host = overrides.host { flagValues[["herald", "http", "host"]] = ConfigValue(.string(host), isSecret: false) }
        if let port = overrides.port { flagValues[["herald", "http", "port"]] = ConfigValue(.string(String(port)), isSecret: false) }
        if let database = overrides.database {
            flagValues[["herald", "database", "url"]] = ConfigValue(.string(database), isSecret: false)
        }
        let reader = ConfigReader(providers: [
            InMemoryProvider(name: "flags", values: flagValues),
            EnvironmentVariablesProvider(environmentVariables: environment.filter { $0.key.hasPrefix("HERALD_") }),
            InMemoryProvider(name: file ?? "no file", values: fileValues),
        ]).scoped(to: "herald")
        let values = ConfigurationValues(reader: reader)
        var configuration = try read(values)
        configuration.given = values.given.withLock { $0 }
        // Demo mode generates keys; a server whose file lost its apps (a typo, a bad merge) must not
        // quietly start with keys nobody configured.
        if let file, configuration.apps.isEmpty {
            throw ConfigurationError(
                "configuration file '\(file)' defines no apps (\"apps\": [{\"id\": …, \"keys\": […]}]); demo mode, with generated keys, runs only without --config"
            )
        }
        return configuration
    }

    static func read(_ settings: ConfigurationValues) throws(ConfigurationError) -> HeraldConfiguration {
        var configuration = HeraldConfiguration()
        let http = settings.block("http", ConfigurationDeclarations.http)
        try settings.checked("http") { () throws(SettingError) in
            configuration.http.host = try http.string("host") ?? configuration.http.host
            configuration.http.port = try http.integer("port") ?? configuration.http.port
            configuration.http.drainSeconds = try http.number("drainSeconds") ?? configuration.http.drainSeconds
            configuration.http.idleTimeoutSeconds = try http.number("idleTimeoutSeconds") ?? configuration.http.idleTimeoutSeconds
            configuration.http.maxConnections = try http.integer("maxConnections") ?? configuration.http.maxConnections
            if let text = try http.string("publicURL") {
                do throws(SettingError) {
                    configuration.http.publicURL = try PublicURL(parsing: text)
                } catch {
                    throw SettingError("publicURL \(error.message)")
                }
            }
        }
        configuration.metrics = try readMetrics(settings, http: configuration.http)
        configuration.database = try readDatabase(settings) ?? configuration.database
        let database = settings.block("database", ConfigurationDeclarations.database)
        try settings.checked("database") { () throws(SettingError) in
            configuration.writeQueueLimit = try database.integer("writeQueueLimit") ?? configuration.writeQueueLimit
        }
        let sweeper = settings.block("sweeper", ConfigurationDeclarations.sweeper)
        try settings.checked("sweeper") { () throws(SettingError) in
            configuration.sweeper.intervalSeconds = try sweeper.number("intervalSeconds") ?? configuration.sweeper.intervalSeconds
            configuration.sweeper.batchSize = try sweeper.integer("batchSize") ?? configuration.sweeper.batchSize
            configuration.sweeper.emptyChannelDays = try sweeper.number("emptyChannelDays") ?? configuration.sweeper.emptyChannelDays
        }
        let dispatcher = settings.block("dispatcher", ConfigurationDeclarations.dispatcher)
        try settings.checked("dispatcher") { () throws(SettingError) in
            var read = configuration.dispatcher
            read.pageSize = try dispatcher.integer("pageSize") ?? read.pageSize
            read.maxOpenPages = try dispatcher.integer("maxOpenPages") ?? read.maxOpenPages
            read.maxConcurrentMessages = try dispatcher.integer("maxConcurrentMessages") ?? read.maxConcurrentMessages
            read.pollIntervalSeconds = try dispatcher.number("pollIntervalSeconds") ?? read.pollIntervalSeconds
            read.leaseSeconds = try dispatcher.number("leaseSeconds") ?? read.leaseSeconds
            read.maxSlices = try dispatcher.integer("maxSlices") ?? read.maxSlices
            read.sliceSize = try dispatcher.integer("sliceSize") ?? read.sliceSize
            configuration.dispatcher = read
            configuration.retries.apns.maxAttempts = try dispatcher.integer("maxAttempts") ?? configuration.retries.apns.maxAttempts
        }
        let history = settings.block("history", ConfigurationDeclarations.history)
        try settings.checked("history") { () throws(SettingError) in
            configuration.dispatcher.recordHistory = try history.boolean("enabled") ?? configuration.dispatcher.recordHistory
            configuration.history.days = try history.integer("days") ?? configuration.history.days
            configuration.history.maxPerDevice = try history.integer("maxPerDevice") ?? configuration.history.maxPerDevice
        }
        let stats = settings.block("stats", ConfigurationDeclarations.stats)
        try settings.checked("stats") { () throws(SettingError) in
            configuration.stats.minuteHours = try stats.integer("minuteHours") ?? configuration.stats.minuteHours
            configuration.stats.hourDays = try stats.integer("hourDays") ?? configuration.stats.hourDays
        }
        let log = settings.block("log", ConfigurationDeclarations.log)
        try settings.checked("log") { () throws(SettingError) in
            if let level = try log.string("level").flatMap(Logger.Level.init(rawValue:)) { configuration.log.level = level }
            if let format = try log.string("format").flatMap(LogConfiguration.Format.init(rawValue:)) { configuration.log.format = format }
        }
        let messages = settings.block("messages", ConfigurationDeclarations.messages)
        try settings.checked("messages") { () throws(SettingError) in
            configuration.messageRetentionDays = try messages.integer("retentionDays") ?? configuration.messageRetentionDays
        }
        let pubsub = settings.block("pubsub", ConfigurationDeclarations.pubsub)
        try settings.checked("pubsub") { () throws(SettingError) in
            var read = configuration.pubsub
            read.retentionSeconds = try pubsub.number("retentionSeconds") ?? read.retentionSeconds
            read.subscriptionIdleSeconds = try pubsub.number("subscriptionIdleSeconds") ?? read.subscriptionIdleSeconds
            read.maxSubscriptionsPerApp = try pubsub.integer("maxSubscriptionsPerApp") ?? read.maxSubscriptionsPerApp
            read.maxStreams = try pubsub.integer("maxStreams") ?? read.maxStreams
            read.heartbeatSeconds = try pubsub.number("heartbeatSeconds") ?? read.heartbeatSeconds
            configuration.pubsub = read
        }
        let rt = settings.block("rt", ConfigurationDeclarations.rt)
        try settings.checked("rt") { () throws(SettingError) in
            var read = configuration.rt
            read.enabled = try rt.boolean("enabled") ?? read.enabled
            read.pingIntervalSeconds = try rt.number("pingIntervalSeconds") ?? read.pingIntervalSeconds
            read.pingTimeoutSeconds = try rt.number("pingTimeoutSeconds") ?? read.pingTimeoutSeconds
            read.maxConnections = try rt.integer("maxConnections") ?? read.maxConnections
            read.maxConnectionsPerApp = try rt.integer("maxConnectionsPerApp") ?? read.maxConnectionsPerApp
            read.maxSubscriptionsPerConnection = try rt.integer("maxSubscriptionsPerConnection") ?? read.maxSubscriptionsPerConnection
            read.maxMessageBytes = try rt.integer("maxMessageBytes") ?? read.maxMessageBytes
            configuration.rt = read
        }
        let console = settings.block("console", ConfigurationDeclarations.console)
        try settings.checked("console") { () throws(SettingError) in
            var read = configuration.console
            read.enabled = try console.boolean("enabled") ?? read.enabled
            read.secureCookie = try console.boolean("secureCookie") ?? read.secureCookie
            read.idleMinutes = try console.number("idleMinutes") ?? read.idleMinutes
            read.sessionHours = try console.number("sessionHours") ?? read.sessionHours
            read.loginAttempts = try console.integer("loginAttempts") ?? read.loginAttempts
            configuration.console = read
        }
        configuration.apps = try readApps(settings)
        _ = try AppDirectory(apps: configuration.apps)
        return configuration
    }

    /// `metrics.*`: its own listener (`port`, `host`) or the main port, and an optional bearer token
    /// (`bearerToken`, i.e. `HERALD_METRICS_BEARER_TOKEN`, or `bearerTokenFile`).
    static func readMetrics(_ settings: ConfigurationValues, http: HeraldConfiguration.HTTP) throws(ConfigurationError)
        -> HeraldConfiguration.Metrics
    {
        let values = settings.block("metrics", ConfigurationDeclarations.metrics)
        var metrics = HeraldConfiguration.Metrics()
        try settings.checked("metrics") { () throws(SettingError) in
            metrics.enabled = try values.boolean("enabled") ?? metrics.enabled
            if let port = try values.integer("port") {
                guard port != http.port else {
                    throw SettingError("port \(port) is http.port too; leave metrics.port out to serve /metrics on the main port")
                }
                metrics.port = port
            }
            if values.given("host") != nil {
                guard metrics.port != nil else {
                    throw SettingError("host needs metrics.port (without it /metrics is on the main port)")
                }
            }
            metrics.host = try values.string("host") ?? metrics.host
            var token = values.given("bearerToken")
            if token == nil, let file = try values.string("bearerTokenFile") {
                token = try Self.secret(in: file, key: "bearerTokenFile", trimming: .whitespacesAndNewlines)
            }
            if let token {
                guard token.count >= 16, token.allSatisfy({ $0.isASCII && !$0.isWhitespace }) else {
                    throw SettingError("bearerToken must be at least 16 characters, without spaces")
                }
            }
            metrics.bearerToken = token
        }
        return metrics
    }

    /// The first line of a secret's file (`passwordFile`, `secretFile`, `bearerTokenFile`), which must
    /// not be empty.
    static func secret(in file: String, key: String, trimming: CharacterSet = .newlines) throws(SettingError) -> String {
        guard let contents = FileManager.default.contents(atPath: file) else { throw SettingError("\(key) '\(file)' cannot be read") }
        let secret = String(decoding: contents, as: UTF8.self).trimmingCharacters(in: trimming)
        guard !secret.isEmpty else { throw SettingError("\(key) '\(file)' is empty") }
        return secret
    }

    /// `database.*`: the URL; for PostgreSQL also the pool size and a password kept out of the URL
    /// (`database.password`, i.e. `HERALD_DATABASE_PASSWORD`, or `database.passwordFile`).
    static func readDatabase(_ settings: ConfigurationValues) throws(ConfigurationError) -> DatabaseURL? {
        let values = settings.block("database", ConfigurationDeclarations.database)
        guard let text = values.given("url") else { return nil }
        var url: DatabaseURL
        do {
            url = try DatabaseURL(parsing: text)
        } catch {
            throw ConfigurationError("configuration: \(error.description)")
        }
        guard case .postgres(var location) = url else { return url }
        try settings.checked("database") { () throws(SettingError) in
            location.poolSize = try values.integer("poolSize") ?? location.poolSize
            if location.password == nil {
                if let password = values.given("password") {
                    location.password = password
                } else if let file = try values.string("passwordFile") {
                    location.password = try Self.secret(in: file, key: "passwordFile")
                }
            }
        }
        url = .postgres(location)
        return url
    }
}
