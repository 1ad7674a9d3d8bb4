import HeraldCore
import HeraldFCM

/// An app's `fcm` block: how it reaches Firebase Cloud Messaging (HTTP v1) for its ANDROID devices.
public struct FCMAppConfiguration: Sendable, Equatable {
    /// The keys of an `fcm` block: what the loader reads, and what the configuration schema accepts.
    static let settingNames = ["serviceAccountFile", "url", "caFile", "connections", "streamsPerConnection"]

    /// The service-account JSON key file Google issues (project_id, client_email, private_key, token_uri).
    public var serviceAccountFile: String
    /// FCM's address; another (the mock) for tests. The token endpoint is the key file's `token_uri`.
    public var url: String
    /// The CA that signed the server's certificate (the mock's), for FCM and the token endpoint.
    public var caFile: String?
    public var connections: Int
    public var streamsPerConnection: Int

    public init(
        serviceAccountFile: String, url: String = "https://fcm.googleapis.com", caFile: String? = nil, connections: Int = 4,
        streamsPerConnection: Int = 100
    ) {
        self.serviceAccountFile = serviceAccountFile
        self.url = url
        self.caFile = caFile
        self.connections = connections
        self.streamsPerConnection = streamsPerConnection
    }

    /// The client configuration, reading the key file: what start-up calls so a missing or bad file stops
    /// Herald with one line instead of failing every message later.
    public func clientConfiguration(clock: any WallClock = SystemClock()) throws(ConfigurationError) -> FCMClientConfiguration {
        let account: FCMServiceAccount
        do {
            account = try FCMServiceAccount(jsonFile: serviceAccountFile)
        } catch {
            throw ConfigurationError(error.message)
        }
        return FCMClientConfiguration(
            serviceAccount: account, baseURL: url, caFile: caFile, connections: connections,
            streamsPerConnection: streamsPerConnection, clock: clock)
    }
}
