/// Exponential backoff with "equal jitter" for a send that may succeed later: half the delay fixed, half
/// random, so retries of a burst spread out but never come back at once. Every provider's retry policy
/// uses it, so they back off alike.
public struct Backoff: Sendable, Hashable {
    /// Attempts in all, the first included, before a retryable failure becomes `fail`.
    public var maxAttempts: Int
    /// Delay before the second attempt; doubles each attempt after.
    public var baseDelay: Duration
    /// No delay grows past this (a `Retry-After` the service asks for included).
    public var maxDelay: Duration

    public init(maxAttempts: Int = 5, baseDelay: Duration = .milliseconds(250), maxDelay: Duration = .seconds(30)) {
        self.maxAttempts = max(1, maxAttempts)
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
    }

    /// Retry after attempt number `attempt` (1 for the first send), starting from `start` (the base delay
    /// unless the answer calls for more) and never sooner than `atLeast` (a `Retry-After`, capped at
    /// `maxDelay`); `fail` once the attempts are spent.
    public func retry<R: RandomNumberGenerator>(
        attempt: Int, from start: Duration? = nil, atLeast floor: Duration? = nil, because why: String, random: inout R
    ) -> DeliveryDecision {
        guard attempt < maxAttempts else { return .fail("gave up after \(attempt) attempts: \(why)") }
        let exponent = min(max(attempt - 1, 0), 30)
        var delay = (start ?? baseDelay) * (1 << exponent)
        if delay > maxDelay || delay < .zero { delay = maxDelay }
        let half = delay / 2
        // A fraction in [0, 1) from 53 random bits: one draw, no rejection loop.
        let fraction = Double(random.next() >> 11) * 0x1p-53
        let jittered = half + half * fraction
        if let floor { return .retry(after: max(jittered, min(floor, maxDelay))) }
        return .retry(after: jittered)
    }
}
