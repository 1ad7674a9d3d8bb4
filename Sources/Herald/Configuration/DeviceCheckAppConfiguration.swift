import HeraldAPNs
import HeraldCore
import HeraldDeviceCheck
import HeraldSigning

/// An app's DeviceCheck settings (`apps[].deviceCheck`, `HERALD_APPS_<n>_DEVICECHECK_*`): which Apple
/// service, and the `.p8` key (with the DeviceCheck capability; it may be the APNs key) with its ids.
public struct DeviceCheckAppConfiguration: Sendable, Equatable {
    /// The keys of a `deviceCheck` block: what the loader reads, and what the configuration schema accepts.
    static let settingNames = [
        "environment", "url", "caFile", "teamId", "keyId", "privateKeyFile", "connections", "streamsPerConnection",
    ]

    public var environment: DeviceCheckEnvironment
    public var teamID: String
    public var keyID: String
    public var privateKeyFile: String
    public var connections: Int
    public var streamsPerConnection: Int

    public init(
        environment: DeviceCheckEnvironment, teamID: String, keyID: String, privateKeyFile: String, connections: Int = 1,
        streamsPerConnection: Int = 100
    ) {
        self.environment = environment
        self.teamID = teamID
        self.keyID = keyID
        self.privateKeyFile = privateKeyFile
        self.connections = connections
        self.streamsPerConnection = streamsPerConnection
    }

    /// The client configuration, reading the key file: what start-up calls so a missing or bad key stops
    /// Herald with one line instead of failing every call later.
    public func clientConfiguration(clock: any WallClock = SystemClock()) throws(ConfigurationError)
        -> DeviceCheckClientConfiguration
    {
        let key: APNsSigningKey
        do {
            key = try APNsSigningKey(keyID: keyID, teamID: teamID, p8File: privateKeyFile)
        } catch {
            throw ConfigurationError(error.message)
        }
        return DeviceCheckClientConfiguration(
            environment: environment, key: key, connections: connections, streamsPerConnection: streamsPerConnection,
            clock: clock)
    }
}
