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

/// Who switched a device off: an admin (it stays off until an admin switches it on), or a push service
/// refusing its token (APNs BadDeviceToken, FCM SENDER_ID_MISMATCH, …; a new token lifts it). Stored
/// and answered as `admin` or the provider's name (`apns`, `fcm`).
public enum DeactivatedBy: Sendable, Hashable, RawRepresentable {
    case admin
    case provider(PushProvider)

    public init?(rawValue: String) {
        if rawValue == "admin" {
            self = .admin
        } else if let provider = PushProvider(rawValue: rawValue) {
            self = .provider(provider)
        } else {
            return nil
        }
    }

    public var rawValue: String {
        switch self {
        case .admin: "admin"
        case .provider(let provider): provider.rawValue
        }
    }
}
