import HeraldCore

/// The device registry: what Herald knows of each install beyond its token and channels. Its own
/// interface beside `RegistrationStore`, which serves the Backendless registration contract.
public protocol DeviceRegistryStore: Sendable {
    /// Records one launch of the app on the device, creating the device at its first launch (with no
    /// token: not a push target until it registers one), and updating the metadata the launch sent.
    /// Durable when it returns. `allowed` is false only while an admin has the device switched off.
    func recordLaunch(app: String, deviceId: DeviceID, metadata: DeviceMetadata, now: Timestamp) async throws -> LaunchRecord

    /// The whole record of a device (registered, or only launched), or nil when the app has no such device.
    func record(app: String, deviceId: String, now: Timestamp) async throws -> DeviceRecord?

    /// Switches a device off (`reason` kept and answered to its launches) or on, as an admin. An admin's
    /// switch-off blocks pushes and launches and survives a new token; switching on lifts any deactivation.
    /// False when the app has no such device.
    func setActive(app: String, deviceId: String, active: Bool, reason: String?, now: Timestamp) async throws -> Bool

    /// Deletes the device with its registrations and launches (erasure on request). False when unknown.
    func erase(app: String, deviceId: String) async throws -> Bool

    /// A page of the device's launches, newest first, before `cursor` (nil: from the newest); nil when the
    /// app has no such device.
    func launches(app: String, deviceId: String, before cursor: Int64?, limit: Int) async throws -> [LaunchEntry]?

    /// A page of the app's devices that match `filter`, in key order after `cursor` (nil: from the start).
    /// Paging by key keeps pages stable while devices are added or change. Records come without channels.
    /// A page looks at no more than the next `scanLimit` devices of the app, so a filter that matches few
    /// of them may give fewer than `limit`, even none, with a `nextCursor` to go on from.
    func devices(app: String, filter: DeviceFilter, after cursor: Int64?, limit: Int, scanLimit: Int, now: Timestamp)
        async throws -> DeviceListing

    /// The app's devices counted by operating system: how many, how many active, and how many were seen
    /// in the last day, week and month before `now`. One pass over the app's devices (the console caches it).
    func summary(app: String, now: Timestamp) async throws -> [DeviceOS: DeviceCounts]

    /// A page of the device's delivery history, newest first, before `cursor`; nil when the app has
    /// neither such a device nor history of it (a device removed for its token keeps its history).
    func deliveries(app: String, deviceId: String, before cursor: Int64?, limit: Int) async throws -> [DeliveryEntry]?

    /// Deletes delivery history older than `cutoff`, and beyond the newest `keepPerDevice` of each device,
    /// in transactions of at most `batchSize` rows (by age, then one device's excess at a time), so pruning
    /// never holds the write lock for long; of every app, or (`app` set) of one. Returns how many rows it deleted.
    func pruneHistory(before cutoff: Timestamp, keepPerDevice: Int, batchSize: Int, app: String?) async throws -> Int
}

/// A page of the device listing.
public struct DeviceListing: Sendable {
    /// The matching devices, each with its key (the cursor after it).
    public var devices: [(cursor: Int64, record: DeviceRecord)]
    /// Where the next page starts; nil once every device of the app has been looked at.
    public var nextCursor: Int64?

    public init(devices: [(cursor: Int64, record: DeviceRecord)], nextCursor: Int64?) {
        self.devices = devices
        self.nextCursor = nextCursor
    }
}

extension DeviceRegistryStore {
    /// Prunes the history of every app.
    public func pruneHistory(before cutoff: Timestamp, keepPerDevice: Int, batchSize: Int) async throws -> Int {
        try await pruneHistory(before: cutoff, keepPerDevice: keepPerDevice, batchSize: batchSize, app: nil)
    }
}

/// One operating system's devices in an app (`DeviceRegistryStore.summary`).
public struct DeviceCounts: Sendable, Equatable {
    public var devices: Int64
    public var active: Int64
    public var seenDay: Int64
    public var seenWeek: Int64
    public var seenMonth: Int64

    public init(devices: Int64 = 0, active: Int64 = 0, seenDay: Int64 = 0, seenWeek: Int64 = 0, seenMonth: Int64 = 0) {
        self.devices = devices
        self.active = active
        self.seenDay = seenDay
        self.seenWeek = seenWeek
        self.seenMonth = seenMonth
    }
}
