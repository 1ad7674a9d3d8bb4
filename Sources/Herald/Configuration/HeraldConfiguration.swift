import HeraldAPNs
import HeraldCore
import HeraldDeviceCheck
import HeraldDispatch
import HeraldFCM
import HeraldStore
import HeraldWebPush
import HeraldWebhooks

/// Everything `herald serve` needs, read once at start-up. Tests build it literally (port 0).
public struct HeraldConfiguration: Sendable {
    public struct HTTP: Sendable, Equatable {
        public var host: String
        /// 0 picks a free port (tests).
        public var port: Int
        /// Seconds between a shutdown signal and the HTTP server stopping, during which `/ready` answers
        /// 503 and requests are still served, so a load balancer stops sending new ones first.
        public var drainSeconds: Double
        /// A connection is closed when no request has been read in full within this many seconds of its
        /// opening or of the previous answer: a client that connects and sends nothing, or sends its
        /// request head byte by byte, holds a connection no longer than this.
        public var idleTimeoutSeconds: Double
        /// Connections served at once. Past it, new connections wait in the kernel's accept queue until
        /// one closes (they are not refused), so a flood of idle connections cannot exhaust file descriptors.
        public var maxConnections: Int
        /// Where clients reach this Herald (`https://push.example.com`), which `GET …/info` and `…/rt/lookup`
        /// give the SDKs as the real-time server's address. nil: each request's forwarded or `Host` header says.
        public var publicURL: PublicURL?

        public init(
            host: String = "127.0.0.1", port: Int = 8080, drainSeconds: Double = 0, idleTimeoutSeconds: Double = 30,
            maxConnections: Int = 1000, publicURL: PublicURL? = nil
        ) {
            self.host = host
            self.port = port
            self.drainSeconds = drainSeconds
            self.idleTimeoutSeconds = idleTimeoutSeconds
            self.maxConnections = maxConnections
            self.publicURL = publicURL
        }
    }

    /// Where `GET /metrics` is served (`metrics.*`).
    public struct Metrics: Sendable, Equatable {
        /// false: nothing is counted and there is no `/metrics`.
        public var enabled = true
        /// nil: on the main port, beside the API. Set: on its own listener at `host:port` only.
        public var port: Int?
        public var host: String
        /// When set, `/metrics` answers only `Authorization: Bearer <token>`.
        public var bearerToken: String?

        public init(port: Int? = nil, host: String = "127.0.0.1", bearerToken: String? = nil) {
            self.port = port
            self.host = host
            self.bearerToken = bearerToken
        }
    }

    public struct Sweeper: Sendable, Equatable {
        /// How often the timer sweeps. 0 turns the timer off (on-demand sweeps still work).
        public var intervalSeconds: Double
        /// Registrations deleted per transaction, so no sweep holds the write lock for long.
        public var batchSize: Int
        /// Days a channel stays after the sweeps first find it without registrations; 0 (the default)
        /// keeps channels for ever, as Backendless does.
        public var emptyChannelDays: Double

        public init(intervalSeconds: Double = 60, batchSize: Int = 1000, emptyChannelDays: Double = 0) {
            self.intervalSeconds = intervalSeconds
            self.batchSize = batchSize
            self.emptyChannelDays = emptyChannelDays
        }
    }

    public var http: HTTP
    public var metrics = Metrics()
    public var database: DatabaseURL
    public var sweeper: Sweeper
    public var dispatcher: DispatcherConfiguration
    /// How each provider retries a notification (`dispatcher.maxAttempts` is APNs's attempts).
    public var retries = ProviderRetryPolicies()
    /// How long the delivery history is kept (`history.*`; `history.enabled` is `dispatcher.recordHistory`).
    public var history = HistoryConfiguration()
    /// How long the delivery statistics keep minutes and hours (`stats.*`).
    public var stats = StatsConfiguration()
    /// `log.level` and `log.format`.
    public var log = LogConfiguration()
    /// Days a finished message (published, failed or cancelled) stays queryable before the sweeper
    /// deletes it (`messages.retentionDays`).
    public var messageRetentionDays = 30
    /// Publish-subscribe: how long feeds and subscriptions live, and the limits (`pubsub.*`).
    public var pubsub = PubSubConfiguration()
    /// Backendless RT (socket.io) for the SDKs' `subscribe` (`rt.*`).
    public var rt = RTConfiguration()
    /// The web console at `/console` (`console.*`).
    public var console = ConsoleConfiguration()
    /// Registrations (and, apart, launches) that may wait for the database at once; one more is answered
    /// 503 with Retry-After (`database.writeQueueLimit`).
    public var writeQueueLimit = WriteQueueLimit.default
    /// How events that a webhook did not acknowledge are retried (tests shorten it).
    public var webhooks = WebhookRetryPolicy()
    /// The configured apps. Empty means "demo mode": one app `demo` with keys generated on first start.
    public var apps: [AppConfiguration]
    /// The settings the file, the environment or a flag gave, by key (`apps.0.keys.0.key`), secrets
    /// masked: what `effective` lists beside the defaults.
    public var given: [String: String] = [:]

    /// Every top-level setting with its value in force (given, or its default), then what was given for the
    /// apps; secrets masked. The console's Operations page shows it.
    public var effective: [EffectiveSetting] {
        var settings: [EffectiveSetting] = []
        for block in ConfigurationDeclarations.blocks {
            for setting in block.settings {
                let key = "\(block.key).\(setting.key)"
                if key == "database.url" {
                    // The URL in force, its password hidden (it may be given apart, as database.password).
                    settings.append(EffectiveSetting(key: key, value: database.description, source: given[key] == nil ? .default : .given))
                } else if let value = given[key] {
                    settings.append(EffectiveSetting(key: key, value: value, source: .given))
                } else {
                    settings.append(
                        EffectiveSetting(
                            key: key, value: setting.defaultValue ?? "", source: setting.defaultValue == nil ? .unset : .default))
                }
            }
        }
        let appKeys = given.keys.filter { $0.hasPrefix("apps.") }.sorted()
        for key in appKeys { settings.append(EffectiveSetting(key: key, value: given[key] ?? "", source: .given)) }
        return settings
    }

    public init(
        http: HTTP = HTTP(), database: DatabaseURL = .sqliteFile(path: "./herald.sqlite"),
        sweeper: Sweeper = Sweeper(), dispatcher: DispatcherConfiguration = DispatcherConfiguration(),
        apps: [AppConfiguration] = []
    ) {
        self.http = http
        self.database = database
        self.sweeper = sweeper
        self.dispatcher = dispatcher
        self.apps = apps
    }
}

/// One app, its API keys, and how it reaches APNs and FCM.
public struct AppConfiguration: Sendable, Equatable {
    public var id: String
    public var keys: [APIKey]
    /// nil: the app registers Apple devices, but messages to them are not sent (and fail with a clear
    /// reason when the app has no provider at all for them).
    public var apns: APNsAppConfiguration?
    /// nil: the same for ANDROID devices.
    public var fcm: FCMAppConfiguration?
    /// nil: the same for WEB devices (and their subscriptions may name only public hosts).
    public var webPush: WebPushAppConfiguration?
    /// nil: the DeviceCheck routes answer that the app has no `deviceCheck` block.
    public var deviceCheck: DeviceCheckAppConfiguration?
    /// nil: no events are recorded for the app.
    public var webhook: WebhookTarget?
    /// The browser origins (`https://shop.example.com`, or `*`) whose pages may call the app's client
    /// routes (`apps[].cors.allowedOrigins`); none by default.
    public var allowedOrigins: [String] = []

    public init(
        id: String, keys: [APIKey], apns: APNsAppConfiguration? = nil, fcm: FCMAppConfiguration? = nil,
        webPush: WebPushAppConfiguration? = nil, deviceCheck: DeviceCheckAppConfiguration? = nil, webhook: WebhookTarget? = nil
    ) {
        self.id = id
        self.keys = keys
        self.apns = apns
        self.fcm = fcm
        self.webPush = webPush
        self.deviceCheck = deviceCheck
        self.webhook = webhook
    }
}

/// `console.*`: whether `/console` is served, and its sessions' cookie, timeouts and login attempts.
public struct ConsoleConfiguration: Sendable, Equatable {
    public var enabled = true
    /// Mark the session cookie `Secure` (set it when Herald is reached over HTTPS through a proxy that
    /// does not send `X-Forwarded-Proto: https`; with that header the cookie is `Secure` anyway).
    public var secureCookie = false
    /// A session unused this long ends.
    public var idleMinutes: Double = 30
    /// A session ends this long after it was opened, used or not.
    public var sessionHours: Double = 12
    /// Failed logins one client address may make in 15 minutes (per instance); then 429 until they age out.
    public var loginAttempts = 10

    public init() {}

    public var policy: ConsoleSessionPolicy {
        ConsoleSessionPolicy(
            idleMilliseconds: Int64(idleMinutes * 60_000), absoluteMilliseconds: Int64(sessionHours * 3_600_000))
    }
}

/// `pubsub.*`: the feeds' retention, subscriptions' idle time and limits, and the streams'.
public struct PubSubConfiguration: Sendable, Equatable {
    /// A published message stays available to subscribers this long (Backendless keeps 60 s).
    public var retentionSeconds: Double = 60
    /// A subscription neither polled nor streamed for this long expires.
    public var subscriptionIdleSeconds: Double = 300
    public var maxSubscriptionsPerApp = 10_000
    /// Streams (Server-Sent Events) this instance serves at once; one more is answered 503.
    public var maxStreams = 10_000
    /// A stream with nothing to send gets a comment this often, so proxies keep it open.
    public var heartbeatSeconds: Double = 15

    public init() {}

    /// What the store needs of it.
    public var policy: PubSubPolicy {
        PubSubPolicy(
            retentionMilliseconds: Int64(retentionSeconds * 1000), idleMilliseconds: Int64(subscriptionIdleSeconds * 1000),
            maxSubscriptionsPerApp: maxSubscriptionsPerApp)
    }
}

/// `history.days` and `history.maxPerDevice`: the sweeper prunes the delivery history past either.
public struct HistoryConfiguration: Sendable, Equatable {
    public var days: Int
    public var maxPerDevice: Int

    public init(days: Int = 30, maxPerDevice: Int = 100) {
        self.days = days
        self.maxPerDevice = maxPerDevice
    }
}

/// `stats.minuteHours` and `stats.hourDays`: the delivery statistics keep a row per app, push service and
/// minute for `minuteHours` (the console's last hour, `GET …/admin/stats?step=minute`), then the sweeper
/// folds those minutes into hours, kept for `hourDays`.
public struct StatsConfiguration: Sendable, Equatable {
    public var minuteHours: Int
    public var hourDays: Int

    public init(minuteHours: Int = 48, hourDays: Int = 90) {
        self.minuteHours = minuteHours
        self.hourDays = hourDays
    }
}

/// One setting as the console shows it (`HeraldConfiguration.effective`).
public struct EffectiveSetting: Sendable, Equatable {
    public enum Source: String, Sendable { case given, `default`, unset }
    public var key: String
    /// The value (a secret's is `masked`); empty when unset.
    public var value: String
    public var source: Source

    /// What a secret's value shows as.
    public static let masked = "•••••• (set, not shown)"
}
