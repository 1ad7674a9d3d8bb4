import HeraldAPNs
import HeraldCore
import HeraldSigning

/// An app's APNs settings (`apps[].apns` in the file, `HERALD_APPS_<n>_APNS_*` in the environment).
public struct APNsAppConfiguration: Sendable, Equatable {
    /// The keys of an `apns` block: what the loader reads, and what the configuration schema accepts.
    static let settingNames = [
        "environment", "topic", "url", "caFile", "teamId", "keyId", "privateKeyFile", "certificateFile",
        "passphrase", "connections", "streamsPerConnection",
    ]

    public enum Environment: Sendable, Equatable {
        case production
        case development
        /// Any APNs-like server (the mock): its URL and the CA that signed its certificate.
        case custom(url: String, caFile: String?)
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

    public init(
        environment: Environment, topic: String, authentication: Authentication,
        connections: Int = 2, streamsPerConnection: Int = 500
    ) {
        self.environment = environment
        self.topic = topic
        self.authentication = authentication
        self.connections = connections
        self.streamsPerConnection = streamsPerConnection
    }

    /// The client configuration, reading the key file: what start-up calls so a missing or bad
    /// key stops Herald with one line instead of failing every message later.
    public func clientConfiguration(clock: any WallClock = SystemClock()) throws(ConfigurationError) -> APNsClientConfiguration {
        let credentials: APNsCredentials
        do {
            switch authentication {
            case .token(let teamID, let keyID, let file):
                credentials = .token(try APNsSigningKey(keyID: keyID, teamID: teamID, p8File: file))
            case .certificate(let certificate, let key, let passphrase):
                credentials = .certificate(certificateFile: certificate, privateKeyFile: key, passphrase: passphrase)
            }
        } catch {
            throw ConfigurationError(error.message)
        }
        let target: APNsEnvironment =
            switch environment {
            case .production: .production
            case .development: .development
            case .custom(let url, let caFile): .custom(url: url, caFile: caFile)
            }
        return APNsClientConfiguration(
            environment: target, credentials: credentials, connections: connections,
            streamsPerConnection: streamsPerConnection, clock: clock)
    }
}
