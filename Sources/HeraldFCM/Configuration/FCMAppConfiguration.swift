import HeraldCore

/// An app's `fcm` block: how it reaches Firebase Cloud Messaging (HTTP v1) for its ANDROID devices;
/// declared once in `settings`, read by `init(reading:)`.
public struct FCMAppConfiguration: ConfigurationBlock, Equatable {
    /// The block's key under an app.
    public static let key = "fcm"

    /// Every setting of an `fcm` block.
    public static let settings: [Setting] =
        [
            Setting("serviceAccountFile"),
            Setting("url", .url, default: FCMClientConfiguration.defaultBaseURL),
            Setting("caFile", .file),
        ] + FCMClientConfiguration.width.settings + [ConnectionIdle.setting]

    /// The service-account JSON key file Google issues (project_id, client_email, private_key, token_uri).
    public var serviceAccountFile: String
    /// FCM's address; another (the mock) for tests. The token endpoint is the key file's `token_uri`.
    public var url: String
    /// The CA that signed the server's certificate (the mock's), for FCM and the token endpoint.
    public var caFile: String?
    public var connections: Int
    public var streamsPerConnection: Int
    /// Seconds a connection may idle and still be reused (`ConnectionIdle`).
    public var idleReconnectSeconds: Int

    public init(
        serviceAccountFile: String, url: String = FCMClientConfiguration.defaultBaseURL, caFile: String? = nil,
        connections: Int = FCMClientConfiguration.width.defaultConnections,
        streamsPerConnection: Int = FCMClientConfiguration.width.defaultStreams,
        idleReconnectSeconds: Int = ConnectionIdle.defaultSeconds
    ) {
        self.idleReconnectSeconds = idleReconnectSeconds
        self.serviceAccountFile = serviceAccountFile
        self.url = url
        self.caFile = caFile
        self.connections = connections
        self.streamsPerConnection = streamsPerConnection
    }

    /// The block from its values, checked as far as it can be without a network: each value against its
    /// declaration, and the service-account file (parsed, its key an RSA private key).
    public init(reading values: SettingValues) throws(SettingError) {
        guard let file = try values.string("serviceAccountFile") else {
            throw SettingError(
                "serviceAccountFile (the service-account JSON key from Google) is required (\(values.path).serviceAccountFile)")
        }
        self.init(
            serviceAccountFile: file, url: try values.string("url") ?? FCMClientConfiguration.defaultBaseURL,
            caFile: try values.string("caFile"),
            connections: try values.integer("connections") ?? FCMClientConfiguration.width.defaultConnections,
            streamsPerConnection: try values.integer("streamsPerConnection") ?? FCMClientConfiguration.width.defaultStreams,
            idleReconnectSeconds: try values.integer(ConnectionIdle.setting.key) ?? ConnectionIdle.defaultSeconds)
        _ = try clientConfiguration()
    }

    /// The client configuration, reading the key file: what start-up calls so a missing or bad file stops
    /// Herald with one line instead of failing every message later.
    public func clientConfiguration(clock: any WallClock = SystemClock()) throws(SettingError) -> FCMClientConfiguration {
        let account: FCMServiceAccount
        do {
            account = try FCMServiceAccount(jsonFile: serviceAccountFile)
        } catch {
            throw SettingError(error.message)
        }
        return FCMClientConfiguration(
            serviceAccount: account, baseURL: url, caFile: caFile, connections: connections,
            streamsPerConnection: streamsPerConnection, idleReconnect: .seconds(idleReconnectSeconds), clock: clock)
    }
}
