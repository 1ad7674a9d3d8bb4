import HeraldCore
import HeraldCurl
import Testing

@testable import HeraldAPNs

/// A generator that always answers the same, so jittered delays are exact in assertions.
struct FixedRandom: RandomNumberGenerator {
    var value: UInt64
    mutating func next() -> UInt64 { value }
}

@Suite struct RetryPolicyTests {
    let policy = APNsRetryPolicy(maxAttempts: 4, baseDelay: .milliseconds(200), maxDelay: .seconds(5), tooManyRequestsDelay: .seconds(2))

    /// What each documented reason must lead to on a first attempt.
    enum Expected: Equatable { case retry, removeToken, deactivate, abort, fail }

    static let table: [APNsReason.Known: Expected] = [
        .badCollapseId: .fail, .badDeviceToken: .deactivate, .badExpirationDate: .fail, .badMessageId: .fail,
        .badPriority: .fail, .badTopic: .abort, .deviceTokenNotForTopic: .deactivate, .duplicateHeaders: .fail,
        .idleTimeout: .retry, .invalidPushType: .fail, .missingDeviceToken: .fail, .missingTopic: .abort,
        .payloadEmpty: .fail, .topicDisallowed: .abort, .badCertificate: .abort, .badCertificateEnvironment: .abort,
        .expiredProviderToken: .abort, .forbidden: .abort, .invalidProviderToken: .abort,
        .missingProviderToken: .abort, .unrelatedKeyIdInToken: .abort, .badPath: .fail, .methodNotAllowed: .fail,
        .unregistered: .removeToken, .expiredToken: .removeToken, .payloadTooLarge: .fail,
        .tooManyProviderTokenUpdates: .retry, .tooManyRequests: .retry, .internalServerError: .retry,
        .serviceUnavailable: .retry, .shutdown: .retry,
    ]

    static func kind(_ decision: APNsDecision) -> Expected? {
        switch decision {
        case .retry: .retry
        case .removeToken: .removeToken
        case .deactivateToken: .deactivate
        case .abort: .abort
        case .fail: .fail
        case .done: nil
        }
    }

    @Test func everyDocumentedReasonHasADecision() {
        #expect(Set(Self.table.keys) == Set(APNsReason.Known.allCases))
        var random = FixedRandom(value: 0)
        for reason in APNsReason.Known.allCases {
            let response = APNsResponse(
                status: reason.status, reason: .known(reason), timestamp: reason.status == 410 ? 1_700_000_000_000 : nil)
            let decision = policy.decide(.rejected(response), attempt: 1, using: &random)
            #expect(Self.kind(decision) == Self.table[reason], "\(reason)")
        }
    }

    @Test func aLocalRejectionIsDecidedLikeTheSameAnswerFromAPNs() {
        var random = FixedRandom(value: 0)
        for reason in APNsReason.Known.allCases {
            let local = policy.decide(.rejectedLocally(.known(reason)), attempt: 1, using: &random)
            #expect(Self.kind(local) == Self.table[reason], "\(reason)")
        }
    }

    @Test func unregisteredCarriesAPNsTimestamp() {
        let decision = policy.decide(.rejected(APNsResponse(status: 410, reason: .known(.unregistered), timestamp: 1234)), attempt: 1)
        #expect(decision == .removeToken(since: 1234))
    }

    @Test func deliveredIsDone() {
        #expect(policy.decide(.delivered(APNsResponse(status: 200, apnsID: "x")), attempt: 1) == .done)
    }

    @Test func expiredProviderTokenAbortsBecauseTheClientHasAlreadyRetried() {
        let expired = APNsOutcome.rejected(APNsResponse(status: 403, reason: .known(.expiredProviderToken)))
        for attempt in 1...3 {
            guard case .abort = policy.decide(expired, attempt: attempt) else {
                Issue.record("an expiry that reaches the caller must abort, attempt \(attempt)")
                return
            }
        }
    }

    @Test func backoffDoublesWithEqualJitterAndCaps() {
        let unavailable = APNsOutcome.rejected(APNsResponse(status: 503, reason: .known(.serviceUnavailable)))
        var low = FixedRandom(value: 0)
        var high = FixedRandom(value: .max)
        // attempt 1: 200 ms → half fixed (100) + up to 100 random
        #expect(policy.decide(unavailable, attempt: 1, using: &low) == .retry(after: .milliseconds(100)))
        guard case .retry(let most) = policy.decide(unavailable, attempt: 1, using: &high) else {
            Issue.record("503 must retry")
            return
        }
        #expect(most > .milliseconds(199) && most < .milliseconds(200))
        // attempt 3: 800 ms
        #expect(policy.decide(unavailable, attempt: 3, using: &low) == .retry(after: .milliseconds(400)))
        // a long policy caps at maxDelay
        let long = APNsRetryPolicy(maxAttempts: 40, baseDelay: .milliseconds(200), maxDelay: .seconds(5))
        guard case .retry(let capped) = long.decide(unavailable, attempt: 35, using: &high) else {
            Issue.record("503 must retry")
            return
        }
        #expect(capped > .milliseconds(4999) && capped < .seconds(5))
        #expect(long.decide(unavailable, attempt: 35, using: &low) == .retry(after: .milliseconds(2500)))
    }

    @Test func tooManyRequestsBacksOffFromItsOwnStart() {
        var low = FixedRandom(value: 0)
        let decision = policy.decide(.rejected(APNsResponse(status: 429, reason: .known(.tooManyRequests))), attempt: 1, using: &low)
        #expect(decision == .retry(after: .seconds(1)))
    }

    @Test func retriesStopAtMaxAttempts() {
        let failure = APNsOutcome.rejected(APNsResponse(status: 500, reason: .known(.internalServerError)))
        guard case .retry = policy.decide(failure, attempt: 3) else {
            Issue.record("attempt 3 of 4 should retry")
            return
        }
        guard case .fail(let why) = policy.decide(failure, attempt: 4) else {
            Issue.record("attempt 4 of 4 must fail")
            return
        }
        #expect(why.contains("4 attempts"))
    }

    @Test func transportFailuresAreRetriedExceptTLSAndBugs() {
        var random = FixedRandom(value: 0)
        let retried: [APNsTransportError.Kind] = [.connect, .streamReset, .connectionLost, .timeout]
        for kind in retried {
            let decision = policy.decide(.failed(APNsTransportError(kind: kind, curlCode: 7, message: "x")), attempt: 1, using: &random)
            #expect(Self.kind(decision) == .retry, "\(kind)")
        }
        #expect(Self.kind(policy.decide(.failed(APNsTransportError(kind: .tls, curlCode: 60, message: "x")), attempt: 1)) == .abort)
        // A handshake cut off midway is transient.
        #expect(Self.kind(policy.decide(.failed(APNsTransportError(kind: .tls, curlCode: 35, message: "x")), attempt: 1)) == .retry)
        #expect(Self.kind(policy.decide(.failed(APNsTransportError(kind: .other, curlCode: 3, message: "x")), attempt: 1)) == .fail)
        #expect(Self.kind(policy.decide(.failed(APNsTransportError(kind: .cancelled, curlCode: -1, message: "x")), attempt: 1)) == .fail)
        #expect(Self.kind(policy.decide(.failed(APNsTransportError(kind: .credentials, curlCode: 0, message: "x")), attempt: 1)) == .abort)
    }

    @Test func unknownReasonsAreJudgedByStatus() {
        #expect(Self.kind(policy.decide(.rejected(APNsResponse(status: 502, reason: .unknown("Gateway"))), attempt: 1)) == .retry)
        #expect(Self.kind(policy.decide(.rejected(APNsResponse(status: 400, reason: .unknown("NewThing"))), attempt: 1)) == .fail)
        #expect(Self.kind(policy.decide(.rejected(APNsResponse(status: 403, reason: .unknown("NewAuth"))), attempt: 1)) == .abort)
        #expect(Self.kind(policy.decide(.rejected(APNsResponse(status: 503, reason: nil)), attempt: 1)) == .retry)
    }

    @Test func transportKindsFromCurlCodes() {
        #expect(APNsClient.transportKind(curlCode: 7) == .connect)
        #expect(APNsClient.transportKind(curlCode: 28) == .timeout)
        #expect(APNsClient.transportKind(curlCode: 60) == .tls)
        #expect(APNsClient.transportKind(curlCode: 35) == .tls)
        #expect(APNsClient.transportKind(curlCode: 92) == .streamReset)
        #expect(APNsClient.transportKind(curlCode: 16) == .streamReset)
        #expect(APNsClient.transportKind(curlCode: 56) == .connectionLost)
        #expect(APNsClient.transportKind(curlCode: -1) == .cancelled)
        #expect(APNsClient.transportKind(curlCode: 3) == .other)
    }
}
