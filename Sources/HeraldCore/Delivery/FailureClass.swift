/// Why a notification was not delivered, in five classes every push service shares: what the delivery
/// statistics count failures by (the console's chart, `GET …/admin/stats`). A finer reason stays in the
/// delivery history and the metrics' `reason` label.
public enum FailureClass: String, Sendable, CaseIterable, Codable {
    /// The token is gone or wrong for the app (APNs 410 / BadDeviceToken, FCM UNREGISTERED, Web Push 404 / 410).
    case invalidToken = "invalid_token"
    /// The service asked Herald to slow down (429) and the retries ran out.
    case throttled
    /// The service failed or did not answer (5xx, a connection or TLS failure, a timeout).
    case service
    /// The credentials or the app's provider settings were refused (401, 403, a job aborted for them).
    case auth
    /// Anything else the service refused (a payload too large, a bad topic, …).
    case other

    /// The class of a final answer: from the decision when it says what is wrong with the token or the
    /// credentials, else from the HTTP status (nil: no answer came).
    public init(decision: DeliveryDecision, status: Int?) {
        switch decision {
        case .removeToken, .deactivateToken: self = .invalidToken
        case .abort: self = .auth
        case .done, .retry, .fail:
            switch status {
            case nil: self = .service
            case 429?: self = .throttled
            case 401?, 403?: self = .auth
            case let status? where status >= 500: self = .service
            default: self = .other
            }
        }
    }
}
