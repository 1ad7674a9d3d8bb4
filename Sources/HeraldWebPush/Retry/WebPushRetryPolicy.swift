import HeraldCore
import HeraldCurl

/// Decides, from one Web Push send's outcome and how many attempts it has had, what happens next.
/// A plain value so the whole table is tested without sockets.
///
/// Each subscription has its own push service, so an answer says something about that subscription or
/// that service, never about every send of the message: nothing here aborts a fan-out except a VAPID
/// key that cannot sign.
public struct WebPushRetryPolicy: Sendable, Hashable {
    /// How outages and rate limits back off: attempts in all, the base delay that doubles each attempt,
    /// and the cap (a `Retry-After` included).
    public var backoff: Backoff
    /// 429 means this sender pushes too fast to that service: start its backoff this high.
    public var tooManyRequestsDelay: Duration

    public init(
        backoff: Backoff = Backoff(maxAttempts: 5, baseDelay: .milliseconds(250), maxDelay: .seconds(120)),
        tooManyRequestsDelay: Duration = .seconds(10)
    ) {
        self.backoff = backoff
        self.tooManyRequestsDelay = tooManyRequestsDelay
    }

    /// The decision after attempt number `attempt` (1 for the first send) ended in `outcome`.
    public func decide<R: RandomNumberGenerator>(_ outcome: WebPushOutcome, attempt: Int, using random: inout R) -> DeliveryDecision {
        switch outcome {
        case .delivered:
            return .done
        case .rejected(let response):
            return decide(response, attempt: attempt, random: &random)
        case .failed(let error):
            // A TLS failure is one push service's certificate: the other services' sends go on.
            return backoff.decide(
                error, attempt: attempt, service: "the push service", credentials: "the VAPID key cannot sign",
                tlsStopsTheMessage: false, random: &random)
        }
    }

    /// The same, with the system's random generator.
    public func decide(_ outcome: WebPushOutcome, attempt: Int) -> DeliveryDecision {
        var random = SystemRandomNumberGenerator()
        return decide(outcome, attempt: attempt, using: &random)
    }

    private func decide<R: RandomNumberGenerator>(_ response: WebPushResponse, attempt: Int, random: inout R) -> DeliveryDecision {
        let retryAfter = response.retryAfterSeconds.map { Duration.seconds($0) }
        let words = response.message.map { ": \($0)" } ?? ""
        switch response.status {
        case 404, 410:
            // The subscription expired or the browser unsubscribed (RFC 8030 §7.3, §8.3).
            return .removeToken(since: nil)
        case 413:
            return .fail("the push service found the payload too large (413)\(words)")
        case 429:
            return backoff.retry(
                attempt: attempt, from: tooManyRequestsDelay, atLeast: retryAfter, because: "429 Too Many Requests", random: &random)
        case 500...599:
            return backoff.retry(attempt: attempt, atLeast: retryAfter, because: "status \(response.status)\(words)", random: &random)
        case 401, 403:
            // The VAPID token was refused, or the subscription was made with another applicationServerKey.
            return .fail("the push service refused the VAPID authorization (\(response.status))\(words)")
        default:
            return .fail("the push service rejected the notification (\(response.status))\(words)")
        }
    }
}
