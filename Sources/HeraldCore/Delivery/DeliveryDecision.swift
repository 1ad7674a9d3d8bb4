/// What to do after one send to a push service, as that provider's retry policy decides it from the
/// answer (`APNsRetryPolicy`, `FCMRetryPolicy`). The fan-out acts on it the same way whichever service
/// answered. (Refreshing credentials is not the caller's decision: each client renews its own token
/// and retries once by itself when the service says it expired.)
public enum DeliveryDecision: Sendable, Hashable {
    /// Delivered; nothing more to do.
    case done
    /// Send again after this delay.
    case retry(after: Duration)
    /// The token is gone (APNs 410, FCM UNREGISTERED): remove the registration unless the device
    /// registered again after `since` (epoch milliseconds, APNs's timestamp; nil if none was given).
    case removeToken(since: Int64?)
    /// The token is wrong for this app (BadDeviceToken, DeviceTokenNotForTopic, SENDER_ID_MISMATCH):
    /// stop using it.
    case deactivateToken
    /// The credentials or the app's provider settings are wrong: every send with them would fail the
    /// same way, so stop the whole job and tell the operator.
    case abort(String)
    /// This notification cannot be delivered; others can.
    case fail(String)
}

extension DeliveryDecision {
    /// The decision without its details, for metric labels, logs and tables in tests.
    public var name: String {
        switch self {
        case .done: "done"
        case .retry: "retry"
        case .removeToken: "removeToken"
        case .deactivateToken: "deactivateToken"
        case .abort: "abort"
        case .fail: "fail"
        }
    }
}
