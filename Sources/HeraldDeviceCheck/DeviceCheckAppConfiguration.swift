import HeraldCore
import HeraldSigning

/// An app's DeviceCheck settings (`apps[].deviceCheck`, `HERALD_APPS_<n>_DEVICECHECK_*`): which Apple
/// service, and the `.p8` key (with the DeviceCheck capability; it may be the APNs key) with its ids;
/// declared once in `settings`, read by `init(reading:)`.
public struct DeviceCheckAppConfiguration: ConfigurationBlock, Equatable {
    /// The block's key under an app.
    public static let key = "deviceCheck"

    /// Every setting of a `deviceCheck` block.
    public static let settings: [Setting] =
        [
            Setting("environment", .choice(["production", "development", "custom"]), default: "production"),
            Setting("url", .url),
            Setting("caFile", .file),
            Setting("teamId"),
            Setting("keyId"),
            Setting("privateKeyFile"),
        ] + DeviceCheckClientConfiguration.width.settings

    public var environment: DeviceCheckEnvironment
    public var teamID: String
    public var keyID: String
    public var privateKeyFile: String
    public var connections: Int
    public var streamsPerConnection: Int

    public init(
        environment: DeviceCheckEnvironment, teamID: String, keyID: String, privateKeyFile: String,
        connections: Int = DeviceCheckClientConfiguration.width.defaultConnections,
        streamsPerConnection: Int = DeviceCheckClientConfiguration.width.defaultStreams
    ) {
        self.environment = environment
        self.teamID = teamID
        self.keyID = keyID
        self.privateKeyFile = privateKeyFile
        self.connections = connections
        self.streamsPerConnection = streamsPerConnection
    }

    /// The block from its values, checked as far as it can be without a network: each value against its
    /// declaration, and the key file (parsed).
    public init(reading values: SettingValues) throws(SettingError) {
        let environment: DeviceCheckEnvironment
        switch try values.string("environment") {
        case "custom":
            guard let url = try values.string("url") else {
                throw SettingError("environment 'custom' needs a url (\(values.path).url)")
            }
            environment = .custom(url: url, caFile: try values.string("caFile"))
        case "development": environment = .development
        default: environment = .production
        }
        guard let team = try values.string("teamId"), let key = try values.string("keyId"),
            let file = try values.string("privateKeyFile")
        else {
            throw SettingError("teamId, keyId and privateKeyFile (a .p8 key with the DeviceCheck capability) are required")
        }
        self.init(
            environment: environment, teamID: team, keyID: key, privateKeyFile: file,
            connections: try values.integer("connections") ?? DeviceCheckClientConfiguration.width.defaultConnections,
            streamsPerConnection: try values.integer("streamsPerConnection") ?? DeviceCheckClientConfiguration.width.defaultStreams)
        _ = try clientConfiguration()
    }

    /// The client configuration, reading the key file: what start-up calls so a missing or bad key stops
    /// Herald with one line instead of failing every call later.
    public func clientConfiguration(clock: any WallClock = SystemClock()) throws(SettingError) -> DeviceCheckClientConfiguration {
        let key: AppleSigningKey
        do {
            key = try AppleSigningKey(keyID: keyID, teamID: teamID, p8File: privateKeyFile)
        } catch {
            throw SettingError(error.message)
        }
        return DeviceCheckClientConfiguration(
            environment: environment, key: key, connections: connections, streamsPerConnection: streamsPerConnection,
            clock: clock)
    }
}
