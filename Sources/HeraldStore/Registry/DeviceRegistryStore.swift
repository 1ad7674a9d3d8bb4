import HeraldCore

/// The device registry: what Herald knows of each install beyond its token and channels. Its own
/// interface beside `RegistrationStore`, which serves the Backendless registration contract.
public protocol DeviceRegistryStore: Sendable {
    /// Records one launch of the app on the device, creating the device at its first launch (with no
    /// token: not a push target until it registers one), and updating the metadata the launch sent.
    /// Durable when it returns. `allowed` is false only while an admin has the device switched off.
    func recordLaunch(app: String, deviceId: DeviceID, metadata: DeviceMetadata, now: Timestamp) async throws -> LaunchRecord
}
