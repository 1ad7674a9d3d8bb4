/// What a launch check answers: whether the app may run on this device, and the device's launch history
/// in brief. `reason` is the admin's, when an admin switched the device off.
public struct LaunchRecord: Sendable, Equatable {
    public var allowed: Bool
    public var reason: String?
    public var launchCount: Int64
    public var firstLaunchAt: Timestamp
    public var lastLaunchAt: Timestamp

    public init(allowed: Bool, reason: String?, launchCount: Int64, firstLaunchAt: Timestamp, lastLaunchAt: Timestamp) {
        self.allowed = allowed
        self.reason = reason
        self.launchCount = launchCount
        self.firstLaunchAt = firstLaunchAt
        self.lastLaunchAt = lastLaunchAt
    }
}

/// Who switched a device off: an admin (it stays off until an admin switches it on), or APNs or FCM
/// refusing its token (a new token lifts it).
public enum DeactivatedBy: String, Sendable, Equatable {
    case admin
    case apns
    /// FCM refused the token (INVALID_ARGUMENT about it, SENDER_ID_MISMATCH); like `apns`, a new token lifts it.
    case fcm
}
