/// When to post an event again after its receiver did not acknowledge it: doubling from `baseMilliseconds`
/// up to `maxMilliseconds`, for as long as it takes (an event is dropped only when acknowledged).
public struct WebhookRetryPolicy: Sendable, Equatable {
    public var baseMilliseconds: Int64
    public var maxMilliseconds: Int64

    public init(baseMilliseconds: Int64 = 1_000, maxMilliseconds: Int64 = 3_600_000) {
        self.baseMilliseconds = max(1, baseMilliseconds)
        self.maxMilliseconds = max(self.baseMilliseconds, maxMilliseconds)
    }

    /// The wait after the `attempt`-th failed attempt (1 for the first), or the receiver's `Retry-After`
    /// when it gave one that is longer (capped like the rest).
    public func delay(afterAttempt attempt: Int, retryAfterSeconds: Int64? = nil) -> Int64 {
        let shift = min(max(attempt - 1, 0), 40)
        let doubled = baseMilliseconds.multipliedReportingOverflow(by: Int64(1) << shift)
        var wait = doubled.overflow ? maxMilliseconds : min(doubled.partialValue, maxMilliseconds)
        if let retryAfterSeconds, retryAfterSeconds > 0 { wait = max(wait, min(retryAfterSeconds * 1000, maxMilliseconds)) }
        return wait
    }
}
