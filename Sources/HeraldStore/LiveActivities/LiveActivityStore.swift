import HeraldCore

/// A device's iOS Live Activity tokens: its push-to-start token per attributes type, and the update token
/// of each activity it runs. Kept beside the registration (the device's own token is for its other
/// pushes), removed with the device, forgotten by the sweeper once Apple would no longer show the activity.
public protocol LiveActivityStore: Sendable {
    /// Stores (or rotates: replaces) the device's push-to-start token for the type.
    func setStartToken(app: String, deviceId: String, attributesType: String, token: String, now: Timestamp) async throws
        -> LiveActivityWrite
    /// Forgets the device's push-to-start token for the type; false when it had none.
    func removeStartToken(app: String, deviceId: String, attributesType: String) async throws -> Bool
    /// Stores a running activity's update token, or rotates it (the same activity id: the token is
    /// replaced, the start kept). `.stored` carries when the sweeper will forget it.
    func putActivity(app: String, deviceId: String, activityId: String, attributesType: String, token: String, now: Timestamp)
        async throws -> LiveActivityWrite
    /// Forgets one activity of the device; false when it had no such activity.
    func removeActivity(app: String, deviceId: String, activityId: String) async throws -> Bool
    /// Marks one activity ended at `now` (an `end` published to it), shortening its lifetime to Apple's
    /// 4 hours on the Lock Screen or its dismissal date. False when no device of the app has it.
    func endActivity(app: String, activityId: String, attributesType: String, now: Timestamp, dismissal: Timestamp?) async throws -> Bool
    /// The device's tokens, or nil when the app has no such device.
    func liveActivities(app: String, deviceId: String, now: Timestamp) async throws -> DeviceLiveActivities?
    /// Deletes up to `limit` activities past their expiry, of every app or (`app` set) of one; returns how many.
    func deleteExpiredActivities(now: Timestamp, limit: Int, app: String?) async throws -> Int
}

/// What storing a Live Activity token did.
public enum LiveActivityWrite: Sendable, Equatable {
    /// Stored; for an activity, when the sweeper will forget it.
    case stored(expiresAt: Timestamp?)
    /// The app has no such device (it registers or launches first).
    case unknownDevice
    /// The device is not an iOS device: Live Activities are ActivityKit's, iPhone and iPad only.
    case notIOS(DeviceOS)
}

/// A device's Live Activity tokens, for the registry and the console.
public struct DeviceLiveActivities: Sendable, Equatable {
    public struct StartToken: Sendable, Equatable {
        public var attributesType: String
        public var token: String
        public var updatedAt: Timestamp
    }

    public struct Activity: Sendable, Equatable {
        public var activityId: String
        public var attributesType: String
        public var token: String
        public var startedAt: Timestamp
        public var updatedAt: Timestamp
        public var endedAt: Timestamp?
        public var expiresAt: Timestamp
    }

    /// By attributes type.
    public var startTokens: [StartToken]
    /// Newest start first.
    public var activities: [Activity]

    public init(startTokens: [StartToken], activities: [Activity]) {
        self.startTokens = startTokens
        self.activities = activities
    }
}
