import HeraldAPNs
import HeraldFCM
import HeraldWebPush

/// How each push service's notifications are retried. The dispatcher leaves retrying to the provider's
/// client (a service's answers and their meaning are its module's business); the configuration hands
/// each client its policy. `dispatcher.maxAttempts` sets APNs's attempts; tests shorten the delays.
public struct ProviderRetryPolicies: Sendable, Equatable {
    /// Backoff and attempts for retryable APNs failures.
    public var apns: APNsRetryPolicy
    /// The same for FCM (QUOTA_EXCEEDED starts high, and `Retry-After` is honoured).
    public var fcm: FCMRetryPolicy
    /// The same for Web Push (429 starts high, and `Retry-After` is honoured).
    public var webPush: WebPushRetryPolicy

    public init(
        apns: APNsRetryPolicy = APNsRetryPolicy(), fcm: FCMRetryPolicy = FCMRetryPolicy(),
        webPush: WebPushRetryPolicy = WebPushRetryPolicy()
    ) {
        self.apns = apns
        self.fcm = fcm
        self.webPush = webPush
    }
}
