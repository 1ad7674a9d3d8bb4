import HeraldCore
import HeraldCurl

/// Decides, from one send's outcome and how many attempts it has had, what happens next.
/// A plain value so the whole table is tested without sockets.
public struct APNsRetryPolicy: Sendable, Hashable {
    /// Attempts in all, the first included, before a retryable failure becomes `fail`.
    public var maxAttempts: Int
    /// Delay before the second attempt; doubles each attempt after.
    public var baseDelay: Duration
    /// No delay grows past this.
    public var maxDelay: Duration
    /// 429 TooManyRequests is per device: start its backoff this high.
    public var tooManyRequestsDelay: Duration

    public init(
        maxAttempts: Int = 5, baseDelay: Duration = .milliseconds(250), maxDelay: Duration = .seconds(30),
        tooManyRequestsDelay: Duration = .seconds(2)
    ) {
        self.maxAttempts = max(1, maxAttempts)
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
        self.tooManyRequestsDelay = tooManyRequestsDelay
    }

    /// The decision after attempt number `attempt` (1 for the first send) ended in `outcome`.
    public func decide<R: RandomNumberGenerator>(
        _ outcome: APNsOutcome, attempt: Int, using random: inout R
    ) -> APNsDecision {
        switch outcome {
        case .delivered:
            return .done
        case .rejectedLocally(let reason):
            return decide(reason: reason, status: reason.status, timestamp: nil, attempt: attempt, random: &random)
        case .rejected(let response):
            return decide(
                reason: response.reason, status: response.status, timestamp: response.timestamp,
                attempt: attempt, random: &random)
        case .failed(let error):
            return Backoff(maxAttempts: maxAttempts, baseDelay: baseDelay, maxDelay: maxDelay).decide(
                error, attempt: attempt, service: "APNs", credentials: "cannot sign provider tokens", random: &random)
        }
    }

    /// The same, with the system's random generator.
    public func decide(_ outcome: APNsOutcome, attempt: Int) -> APNsDecision {
        var random = SystemRandomNumberGenerator()
        return decide(outcome, attempt: attempt, using: &random)
    }

    private func decide<R: RandomNumberGenerator>(
        reason: APNsReason?, status: Int?, timestamp: Int64?, attempt: Int, random: inout R
    ) -> APNsDecision {
        switch reason {
        case .known(let known)?:
            return decide(known, timestamp: timestamp, attempt: attempt, random: &random)
        case .unknown(let name)?:
            return byStatus(status, because: name, attempt: attempt, random: &random)
        case nil:
            return byStatus(status, because: "status \(status.map(String.init) ?? "none")", attempt: attempt, random: &random)
        }
    }

    private func decide<R: RandomNumberGenerator>(
        _ reason: APNsReason.Known, timestamp: Int64?, attempt: Int, random: inout R
    ) -> APNsDecision {
        switch reason {
        case .unregistered, .expiredToken:
            return .removeToken(since: timestamp)
        case .badDeviceToken, .deviceTokenNotForTopic:
            return .deactivateToken
        case .expiredProviderToken:
            // APNsClient has already signed a fresh token and retried once; an expiry that
            // reaches the caller means the clock or the key is wrong, for every send.
            return .abort("APNs rejected a freshly signed provider token as expired (check the clock and the key)")
        case .badCertificate, .badCertificateEnvironment, .forbidden, .invalidProviderToken, .missingProviderToken,
            .unrelatedKeyIdInToken:
            return .abort("APNs rejected the app's credentials: \(reason.rawValue)")
        case .topicDisallowed, .badTopic, .missingTopic:
            // Wrong for every token of the app, so it is the app's setting, not this device:
            // stopping the job beats deactivating a whole channel's devices one by one (the
            // reference lists TopicDisallowed with the per-token reasons; this is deliberate).
            return .abort("APNs rejected the app's topic: \(reason.rawValue)")
        case .tooManyRequests:
            return retry(attempt: attempt, from: tooManyRequestsDelay, because: reason.rawValue, random: &random)
        case .tooManyProviderTokenUpdates, .internalServerError, .serviceUnavailable, .shutdown, .idleTimeout:
            return retry(attempt: attempt, from: baseDelay, because: reason.rawValue, random: &random)
        case .badCollapseId, .badExpirationDate, .badMessageId, .badPriority, .duplicateHeaders, .invalidPushType,
            .missingDeviceToken, .payloadEmpty, .badPath, .methodNotAllowed, .payloadTooLarge:
            return .fail("APNs rejected the notification: \(reason.rawValue)")
        }
    }

    /// A reason we do not know: 5xx and 429 are worth another try, anything else is not.
    private func byStatus<R: RandomNumberGenerator>(
        _ status: Int?, because why: String, attempt: Int, random: inout R
    ) -> APNsDecision {
        guard let status else { return .fail(why) }
        if status == 429 || status >= 500 { return retry(attempt: attempt, from: baseDelay, because: why, random: &random) }
        if status == 403 { return .abort("APNs refused the app's credentials: \(why)") }
        return .fail("APNs rejected the notification: \(why)")
    }

    private func retry<R: RandomNumberGenerator>(
        attempt: Int, from start: Duration, because why: String, random: inout R
    ) -> APNsDecision {
        Backoff(maxAttempts: maxAttempts, baseDelay: baseDelay, maxDelay: maxDelay).retry(
            attempt: attempt, from: start, because: why, random: &random)
    }
}
