import HeraldCore
import HeraldCurl

/// Decides, from one FCM send's outcome and how many attempts it has had, what happens next.
/// A plain value so the whole table is tested without sockets.
public struct FCMRetryPolicy: Sendable, Hashable {
    /// How outages and quota answers back off: attempts in all, the base delay that doubles each
    /// attempt, and the cap (a `Retry-After` included).
    public var backoff: Backoff
    /// QUOTA_EXCEEDED means the project (or the device) sends too fast: start its backoff this high,
    /// so the first retry comes after half to all of it.
    public var quotaExceededDelay: Duration

    public init(
        backoff: Backoff = Backoff(maxAttempts: 5, baseDelay: .milliseconds(250), maxDelay: .seconds(120)),
        quotaExceededDelay: Duration = .seconds(60)
    ) {
        self.backoff = backoff
        self.quotaExceededDelay = quotaExceededDelay
    }

    /// The decision after attempt number `attempt` (1 for the first send) ended in `outcome`.
    public func decide<R: RandomNumberGenerator>(_ outcome: FCMOutcome, attempt: Int, using random: inout R) -> DeliveryDecision {
        switch outcome {
        case .delivered:
            return .done
        case .rejected(let response):
            return decide(response, attempt: attempt, random: &random)
        case .failed(let error):
            return backoff.decide(error, attempt: attempt, service: "FCM", credentials: "no FCM access token", random: &random)
        }
    }

    /// The same, with the system's random generator.
    public func decide(_ outcome: FCMOutcome, attempt: Int) -> DeliveryDecision {
        var random = SystemRandomNumberGenerator()
        return decide(outcome, attempt: attempt, using: &random)
    }

    private func decide<R: RandomNumberGenerator>(_ response: FCMResponse, attempt: Int, random: inout R) -> DeliveryDecision {
        let retryAfter = response.retryAfterSeconds.map { Duration.seconds($0) }
        let words = response.message.map { ": \($0.prefix(200))" } ?? ""
        switch response.errorCode {
        case .unregistered?:
            return .removeToken(since: nil)
        case .invalidArgument?:
            if Self.blamesToken(response.message) { return .deactivateToken }
            return .fail("FCM rejected the message (INVALID_ARGUMENT)\(words)")
        case .senderIDMismatch?:
            return .deactivateToken
        case .quotaExceeded?:
            return retry(attempt: attempt, from: quotaExceededDelay, atLeast: retryAfter, because: "QUOTA_EXCEEDED", random: &random)
        case .unavailable?, .internal?:
            return retry(attempt: attempt, atLeast: retryAfter, because: response.errorCode!.name, random: &random)
        case .thirdPartyAuthError?:
            return .abort("Firebase's APNs or web push credentials for the app were refused (THIRD_PARTY_AUTH_ERROR)\(words)")
        case .unauthenticated?:
            // FCMClient has already fetched a fresh access token and retried once.
            return .abort("FCM refused a freshly obtained access token (UNAUTHENTICATED)\(words)")
        case .permissionDenied?:
            return .abort("the service account may not send for this project (PERMISSION_DENIED)\(words)")
        case .notFound?:
            // A dead token carries UNREGISTERED; a bare NOT_FOUND means the URL (the project) is wrong.
            return .abort("FCM does not know the project (NOT_FOUND)\(words)")
        case .unknown(let name)?:
            return byStatus(response.status, because: name + words, retryAfter: retryAfter, attempt: attempt, random: &random)
        case nil:
            return byStatus(
                response.status, because: "status \(response.status)\(words)", retryAfter: retryAfter, attempt: attempt, random: &random)
        }
    }

    /// An INVALID_ARGUMENT about the registration token rather than the message. FCM says so only in
    /// its text: "The registration token is not a valid FCM registration token", "Invalid registration
    /// token", or a complaint about the field `message.token`.
    static func blamesToken(_ message: String?) -> Bool {
        guard let text = message?.lowercased() else { return false }
        return text.contains("registration token") || text.contains("message.token")
    }

    /// A code we do not know: 429 and 5xx are worth another try, 401 and 403 are the credentials,
    /// anything else is this message.
    private func byStatus<R: RandomNumberGenerator>(
        _ status: Int, because why: String, retryAfter: Duration?, attempt: Int, random: inout R
    ) -> DeliveryDecision {
        if status == 429 {
            return retry(attempt: attempt, from: quotaExceededDelay, atLeast: retryAfter, because: why, random: &random)
        }
        if status >= 500 { return retry(attempt: attempt, atLeast: retryAfter, because: why, random: &random) }
        if status == 401 || status == 403 { return .abort("FCM refused the credentials: \(why)") }
        return .fail("FCM rejected the message: \(why)")
    }

    private func retry<R: RandomNumberGenerator>(
        attempt: Int, from start: Duration? = nil, atLeast floor: Duration? = nil, because why: String, random: inout R
    ) -> DeliveryDecision {
        backoff.retry(attempt: attempt, from: start, atLeast: floor, because: why, random: &random)
    }
}
