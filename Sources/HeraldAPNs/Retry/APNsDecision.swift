/// What to do after one send, as `APNsRetryPolicy` decides it. (Refreshing credentials is not
/// the caller's decision: `APNsClient` signs a new provider token and retries once by itself
/// when APNs answers ExpiredProviderToken.)
public enum APNsDecision: Sendable, Hashable {
    /// Delivered; nothing more to do.
    case done
    /// Send again after this delay.
    case retry(after: Duration)
    /// The token is gone (410): remove the registration unless the device registered again after
    /// `since` (epoch milliseconds, APNs's timestamp; nil if APNs gave none).
    case removeToken(since: Int64?)
    /// The token is wrong for this app (BadDeviceToken, DeviceTokenNotForTopic): stop using it.
    case deactivateToken
    /// The credentials or the app's APNs settings are wrong: every send with them would fail the
    /// same way, so stop the whole job and tell the operator.
    case abort(String)
    /// This notification cannot be delivered; others can.
    case fail(String)
}
