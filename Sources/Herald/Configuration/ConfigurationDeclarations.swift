import HeraldAPNs
import HeraldCore
import HeraldDispatch
import HeraldStore
import HeraldWebhooks
import Logging

/// Herald's own configuration blocks, each setting declared once (`Setting`): the loader reads through
/// these, `ConfigurationSchema` (the unknown-key check and the `HERALD_*` names) and the JSON Schema
/// (`herald schema`) derive from them, and `ConfigurationTableTests` holds docs/configuration.md to them.
/// A default is the configuration type's own, read from a default instance, so it is stated once.
/// The blocks that modules own (`apns`, `fcm`, `deviceCheck`) declare theirs in their modules.
public enum ConfigurationDeclarations {
    /// The top-level blocks in the order the documentation lists them.
    public static let blocks: [(key: String, settings: [Setting])] = [
        ("http", http), ("metrics", metrics), ("database", database), ("sweeper", sweeper),
        ("dispatcher", dispatcher), ("log", log), ("messages", messages), ("history", history), ("stats", stats), ("pubsub", pubsub),
        ("rt", rt),
        ("console", console),
    ]

    /// The blocks every app may have besides the modules' (`webhook`, `cors`).
    public static let appBlocks: [(key: String, settings: [Setting])] = [("webhook", webhook), ("cors", cors)]

    static let http: [Setting] = {
        let defaults = HeraldConfiguration.HTTP()
        return [
            Setting("host", default: defaults.host),
            .integer("port", 0...65535, default: defaults.port),
            Setting("drainSeconds", .number(0...300, unit: " seconds"), default: defaults.drainSeconds.plainText),
            Setting("idleTimeoutSeconds", .number(0.1...3600, unit: " seconds"), default: defaults.idleTimeoutSeconds.plainText),
            .integer("maxConnections", 1...1_000_000, default: defaults.maxConnections),
            Setting("publicURL", .url),
        ]
    }()

    static let metrics: [Setting] = {
        let defaults = HeraldConfiguration.Metrics()
        return [
            Setting("enabled", .boolean, default: String(defaults.enabled)),
            Setting("port", .integer(1...65535)),
            Setting("host", default: defaults.host),
            Setting("bearerToken", secret: true),
            Setting("bearerTokenFile", .file),
        ]
    }()

    static let database: [Setting] = [
        Setting("url", default: HeraldConfiguration().database.description, secret: true),
        // Two at least: a sweep holds one connection for its lock and works on another.
        .integer("poolSize", 2...1000, default: PostgresLocation.defaultPoolSize),
        Setting("password", secret: true),
        Setting("passwordFile", .file),
        .integer("writeQueueLimit", 1...1_000_000, default: WriteQueueLimit.default),
    ]

    static let sweeper: [Setting] = {
        let defaults = HeraldConfiguration.Sweeper()
        return [
            Setting("intervalSeconds", .number(0...31_536_000, unit: " seconds"), default: defaults.intervalSeconds.plainText),
            .integer("batchSize", 1...100_000, default: defaults.batchSize),
            Setting("emptyChannelDays", .number(0...3650, unit: " days"), default: defaults.emptyChannelDays.plainText),
        ]
    }()

    static let dispatcher: [Setting] = {
        let defaults = DispatcherConfiguration()
        return [
            .integer("pageSize", 1...10_000, default: defaults.pageSize),
            .integer("maxOpenPages", 1...1000, default: defaults.maxOpenPages),
            .integer("maxConcurrentMessages", 1...64, default: defaults.maxConcurrentMessages),
            Setting("pollIntervalSeconds", .number(0.01...60, unit: " seconds"), default: defaults.pollIntervalSeconds.plainText),
            Setting("leaseSeconds", .number(1...3600, unit: " seconds"), default: defaults.leaseSeconds.plainText),
            // APNs's attempts (`ProviderRetryPolicies.apns`); the dispatcher leaves retrying to the providers.
            .integer("maxAttempts", 1...20, default: ProviderRetryPolicies().apns.maxAttempts),
            .integer("maxSlices", 1...256, default: defaults.maxSlices),
            .integer("sliceSize", 1...10_000_000, default: defaults.sliceSize),
        ]
    }()

    static let log: [Setting] = [
        Setting("level", .choice(Logger.Level.allCases.map(\.rawValue)), default: LogConfiguration().level.rawValue),
        Setting("format", .choice(LogConfiguration.Format.allCases.map(\.rawValue)), default: LogConfiguration().format.rawValue),
    ]

    static let messages: [Setting] = [
        .integer("retentionDays", 1...3650, default: HeraldConfiguration().messageRetentionDays)
    ]

    static let history: [Setting] = [
        Setting("enabled", .boolean, default: String(DispatcherConfiguration().recordHistory)),
        .integer("days", 1...3650, default: HistoryConfiguration().days),
        .integer("maxPerDevice", 1...100_000, default: HistoryConfiguration().maxPerDevice),
    ]

    static let stats: [Setting] = [
        .integer("minuteHours", 2...720, default: StatsConfiguration().minuteHours),
        .integer("hourDays", 7...3650, default: StatsConfiguration().hourDays),
    ]

    static let pubsub: [Setting] = {
        let defaults = PubSubConfiguration()
        return [
            Setting("retentionSeconds", .number(1...86_400, unit: " seconds"), default: defaults.retentionSeconds.plainText),
            Setting(
                "subscriptionIdleSeconds", .number(10...2_592_000, unit: " seconds"), default: defaults.subscriptionIdleSeconds.plainText),
            .integer("maxSubscriptionsPerApp", 1...10_000_000, default: defaults.maxSubscriptionsPerApp),
            .integer("maxStreams", 0...1_000_000, default: defaults.maxStreams),
            Setting("heartbeatSeconds", .number(1...300, unit: " seconds"), default: defaults.heartbeatSeconds.plainText),
        ]
    }()

    static let rt: [Setting] = {
        let defaults = RTConfiguration()
        return [
            Setting("enabled", .boolean, default: String(defaults.enabled)),
            Setting("pingIntervalSeconds", .number(1...600, unit: " seconds"), default: defaults.pingIntervalSeconds.plainText),
            Setting("pingTimeoutSeconds", .number(1...600, unit: " seconds"), default: defaults.pingTimeoutSeconds.plainText),
            .integer("maxConnections", 1...1_000_000, default: defaults.maxConnections),
            .integer("maxConnectionsPerApp", 1...1_000_000, default: defaults.maxConnectionsPerApp),
            .integer("maxSubscriptionsPerConnection", 1...10_000, default: defaults.maxSubscriptionsPerConnection),
            .integer("maxMessageBytes", 1024...10_000_000, default: defaults.maxMessageBytes),
        ]
    }()

    static let console: [Setting] = {
        let defaults = ConsoleConfiguration()
        return [
            Setting("enabled", .boolean, default: String(defaults.enabled)),
            Setting("secureCookie", .boolean, default: String(defaults.secureCookie)),
            Setting("idleMinutes", .number(1...1440, unit: " minutes"), default: defaults.idleMinutes.plainText),
            Setting("sessionHours", .number(0.1...720, unit: " hours"), default: defaults.sessionHours.plainText),
            .integer("loginAttempts", 1...10_000, default: defaults.loginAttempts),
        ]
    }()

    static let webhook: [Setting] = [
        Setting("url", .url),
        Setting("secret", secret: true),
        Setting("secretFile", .file),
        Setting("caFile", .file),
        .integer("timeoutSeconds", 1...300, default: WebhookTarget.defaultTimeoutMilliseconds / 1000),
    ]

    static let cors: [Setting] = [Setting("allowedOrigins", .list)]

}
