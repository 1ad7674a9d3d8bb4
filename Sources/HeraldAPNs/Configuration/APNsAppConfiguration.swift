import HeraldCore
import HeraldCurl
import HeraldSigning

/// An app's APNs settings (`apps[].apns` in the file, `HERALD_APPS_<n>_APNS_*` in the environment):
/// declared once in `settings`, read by `init(reading:)`, turned into the client's configuration by
/// `clientConfiguration(clock:)`.
public struct APNsAppConfiguration: ConfigurationBlock, Equatable {
    /// The block's key under an app.
    public static let key = "apns"

    /// Every setting of an `apns` block.
    public static let settings: [Setting] =
        [
            Setting("environment", .choice(["production", "development", "custom"]), default: "production"),
            Setting("topic"),
            Setting("url", .url),
            Setting("caFile", .file),
            Setting("manageUrl", .url),
            Setting("teamId"),
            Setting("keyId"),
            Setting("privateKeyFile"),
            Setting("certificateFile", .file),
            Setting("passphrase", secret: true),
        ] + APNsClientConfiguration.width.settings + [ConnectionIdle.setting]

    public enum Environment: Sendable, Equatable {
        case production
        case development
        /// Any APNs-like server (the mock): its URL and the CA that signed its certificate, and where its
        /// broadcast channel management host is (nil: it has none).
        case custom(url: String, caFile: String?, manageURL: String? = nil)
    }

    public enum Authentication: Sendable, Equatable {
        /// Token auth with the team's `.p8` key.
        case token(teamID: String, keyID: String, privateKeyFile: String)
        /// Certificate auth: a PEM certificate and key, or a `.p12` file.
        case certificate(certificateFile: String, privateKeyFile: String?, passphrase: String?)
    }

    public var environment: Environment
    /// The app's bundle id (`apns-topic`, before the push type's suffix).
    public var topic: String
    public var authentication: Authentication
    public var connections: Int
    public var streamsPerConnection: Int
    /// Seconds a connection may idle and still be reused (`ConnectionIdle`).
    public var idleReconnectSeconds: Int

    public init(
        environment: Environment, topic: String, authentication: Authentication,
        connections: Int = APNsClientConfiguration.width.defaultConnections,
        streamsPerConnection: Int = APNsClientConfiguration.width.defaultStreams,
        idleReconnectSeconds: Int = ConnectionIdle.defaultSeconds
    ) {
        self.idleReconnectSeconds = idleReconnectSeconds
        self.environment = environment
        self.topic = topic
        self.authentication = authentication
        self.connections = connections
        self.streamsPerConnection = streamsPerConnection
    }

    /// The block from its values, checked as far as it can be without a network: each value against
    /// its declaration, what the values must say together, and the key or certificate files (a .p8 is
    /// parsed).
    public init(reading values: SettingValues) throws(SettingError) {
        switch try values.string("environment") {
        case "custom":
            guard let url = try values.string("url") else {
                throw SettingError("environment 'custom' needs a url (\(values.path).url)")
            }
            environment = .custom(url: url, caFile: try values.string("caFile"), manageURL: try values.string("manageUrl"))
        case "development": environment = .development
        default: environment = .production
        }
        guard let topic = try values.string("topic") else {
            throw SettingError("topic (the app's bundle id) is required (\(values.path).topic)")
        }
        self.topic = topic
        if let certificate = try values.string("certificateFile") {
            let key = try values.string("privateKeyFile")
            if let key, !CurlOptions.isReadable(key) { throw SettingError("privateKeyFile '\(key)' cannot be read") }
            authentication = .certificate(
                certificateFile: certificate, privateKeyFile: key, passphrase: try values.string("passphrase"))
        } else {
            guard let team = try values.string("teamId"), let key = try values.string("keyId"),
                let file = try values.string("privateKeyFile")
            else {
                throw SettingError("token auth needs teamId, keyId and privateKeyFile (or give certificateFile)")
            }
            authentication = .token(teamID: team, keyID: key, privateKeyFile: file)
        }
        connections = try values.integer("connections") ?? APNsClientConfiguration.width.defaultConnections
        streamsPerConnection = try values.integer("streamsPerConnection") ?? APNsClientConfiguration.width.defaultStreams
        idleReconnectSeconds = try values.integer(ConnectionIdle.setting.key) ?? ConnectionIdle.defaultSeconds
        _ = try clientConfiguration()
    }

    /// The client configuration, reading the key file: what start-up calls so a missing or bad
    /// key stops Herald with one line instead of failing every message later.
    public func clientConfiguration(clock: any WallClock = SystemClock()) throws(SettingError) -> APNsClientConfiguration {
        let credentials: APNsCredentials
        do {
            switch authentication {
            case .token(let teamID, let keyID, let file):
                credentials = .token(try APNsSigningKey(keyID: keyID, teamID: teamID, p8File: file))
            case .certificate(let certificate, let key, let passphrase):
                credentials = .certificate(certificateFile: certificate, privateKeyFile: key, passphrase: passphrase)
            }
        } catch {
            throw SettingError(error.message)
        }
        let target: APNsEnvironment =
            switch environment {
            case .production: .production
            case .development: .development
            case .custom(let url, let caFile, _): .custom(url: url, caFile: caFile)
            }
        return APNsClientConfiguration(
            environment: target, credentials: credentials, connections: connections,
            streamsPerConnection: streamsPerConnection, idleReconnect: .seconds(idleReconnectSeconds), clock: clock)
    }

    /// Where the app's broadcast channels are managed: Apple's host for its environment, or a custom
    /// environment's `manageUrl`; nil for a custom environment without one.
    public var channelClientConfiguration: APNsChannelClientConfiguration? {
        switch environment {
        case .production: APNsChannelClientConfiguration(baseURL: APNsChannelClientConfiguration.productionURL)
        case .development: APNsChannelClientConfiguration(baseURL: APNsChannelClientConfiguration.sandboxURL)
        case .custom(_, let caFile, let manageURL): manageURL.map { APNsChannelClientConfiguration(baseURL: $0, caFile: caFile) }
        }
    }

    /// A provider token of the app's own for its channel management requests; nil with certificate auth.
    public func channelProviderToken(clock: any WallClock = SystemClock()) throws -> APNsProviderToken? {
        guard case .token(let teamID, let keyID, let file) = authentication else { return nil }
        return APNsProviderToken(key: try APNsSigningKey(keyID: keyID, teamID: teamID, p8File: file), clock: clock)
    }
}
