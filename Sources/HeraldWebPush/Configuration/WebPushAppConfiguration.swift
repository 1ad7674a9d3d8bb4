import HeraldCore

/// An app's `webPush` block: its VAPID key and subject, and which push services its WEB devices'
/// subscriptions may name; declared once in `settings`, read by `init(reading:)`.
public struct WebPushAppConfiguration: ConfigurationBlock, Equatable {
    /// The block's key under an app.
    public static let key = "webPush"

    /// Every setting of a `webPush` block.
    public static let settings: [Setting] =
        [
            Setting("privateKeyFile", .file),
            Setting("subject"),
            Setting("caFile", .file),
            Setting("allowPrivateHosts", .boolean, default: "false"),
            Setting("allowedHosts", .list),
            Setting.integer("services", 1...256, default: WebPushClientConfiguration.defaultServices),
        ] + WebPushClientConfiguration.width.settings + [ConnectionIdle.setting]

    /// The VAPID key pair: a P-256 private key in PEM (`herald keys --vapid FILE` writes one).
    public var privateKeyFile: String
    /// `mailto:` or `https:`: how a push service's operator reaches the sender.
    public var subject: String
    /// The CA that signed the push service's certificate (the mock's); nil for the system's.
    public var caFile: String?
    /// Subscriptions may name loopback, private and link-local hosts (tests and the mock only).
    public var allowPrivateHosts: Bool
    /// When set, subscriptions may name only these hosts or their subdomains.
    public var allowedHosts: [String]?
    public var services: Int
    public var connections: Int
    public var streamsPerConnection: Int
    /// Seconds a connection may idle and still be reused (`ConnectionIdle`).
    public var idleReconnectSeconds: Int

    public init(
        privateKeyFile: String, subject: String, caFile: String? = nil, allowPrivateHosts: Bool = false,
        allowedHosts: [String]? = nil, services: Int = WebPushClientConfiguration.defaultServices,
        connections: Int = WebPushClientConfiguration.width.defaultConnections,
        streamsPerConnection: Int = WebPushClientConfiguration.width.defaultStreams,
        idleReconnectSeconds: Int = ConnectionIdle.defaultSeconds
    ) {
        self.privateKeyFile = privateKeyFile
        self.subject = subject
        self.caFile = caFile
        self.allowPrivateHosts = allowPrivateHosts
        self.allowedHosts = allowedHosts
        self.services = services
        self.connections = connections
        self.streamsPerConnection = streamsPerConnection
        self.idleReconnectSeconds = idleReconnectSeconds
    }

    /// The block from its values, checked as far as it can be without a network: each value against its
    /// declaration, the key file (a P-256 private key) and the subject.
    public init(reading values: SettingValues) throws(SettingError) {
        guard let file = try values.string("privateKeyFile") else {
            throw SettingError(
                "privateKeyFile (a P-256 private key in PEM; `herald keys --vapid FILE` makes one) is required (\(values.path).privateKeyFile)"
            )
        }
        guard let subject = try values.string("subject") else {
            throw SettingError("subject (a mailto: or https: address push services can reach you at) is required (\(values.path).subject)")
        }
        let hosts = values.list("allowedHosts").map { $0.lowercased() }
        for host in hosts where host.isEmpty || host.contains(where: { "/:@ ".contains($0) }) {
            throw SettingError("\(values.path).allowedHosts: '\(host.prefix(64))' is not a host name (give push.example.com, not a URL)")
        }
        self.init(
            privateKeyFile: file, subject: subject, caFile: try values.string("caFile"),
            allowPrivateHosts: try values.boolean("allowPrivateHosts") ?? false, allowedHosts: hosts.isEmpty ? nil : hosts,
            services: try values.integer("services") ?? WebPushClientConfiguration.defaultServices,
            connections: try values.integer("connections") ?? WebPushClientConfiguration.width.defaultConnections,
            streamsPerConnection: try values.integer("streamsPerConnection") ?? WebPushClientConfiguration.width.defaultStreams,
            idleReconnectSeconds: try values.integer(ConnectionIdle.setting.key) ?? ConnectionIdle.defaultSeconds)
        _ = try clientConfiguration()
    }

    /// Which hosts its devices' subscriptions may name (checked at registration and again at each send).
    public var hosts: WebPushSubscription.HostPolicy {
        WebPushSubscription.HostPolicy(allowPrivateHosts: allowPrivateHosts, allowedHosts: allowedHosts)
    }

    /// The client configuration, reading the key file: what start-up calls so a missing or bad key stops
    /// Herald with one line instead of failing every message later.
    public func clientConfiguration(clock: any WallClock = SystemClock()) throws(SettingError) -> WebPushClientConfiguration {
        let key: VAPIDKey
        do {
            key = try VAPIDKey(pemFile: privateKeyFile, subject: subject)
        } catch {
            throw SettingError("webPush: \(error.message)")
        }
        return WebPushClientConfiguration(
            vapidKey: key, caFile: caFile, hosts: hosts, connections: connections, streamsPerConnection: streamsPerConnection,
            services: services, idleReconnect: .seconds(idleReconnectSeconds), clock: clock)
    }
}
