import HeraldCore
import HeraldCurl
import Testing

@testable import HeraldFCM

@Suite struct RetryPolicyTests {
    let policy = FCMRetryPolicy(
        backoff: Backoff(maxAttempts: 4, baseDelay: .milliseconds(200), maxDelay: .seconds(120)), quotaExceededDelay: .seconds(60))

    /// What a decision is, without its delay or reason.
    static func kind(_ decision: DeliveryDecision) -> String { decision.name }

    /// Every code on a first attempt, with a message that does not mention the token.
    static let table: [FCMErrorCode: String] = [
        .unregistered: "removeToken", .invalidArgument: "fail", .senderIDMismatch: "deactivateToken", .quotaExceeded: "retry",
        .unavailable: "retry", .internal: "retry", .thirdPartyAuthError: "abort", .unauthenticated: "abort",
        .permissionDenied: "abort", .notFound: "abort",
    ]

    @Test func everyKnownCodeHasADecision() {
        #expect(Set(Self.table.keys) == Set(FCMErrorCode.known))
        var random = FixedRandom(value: 0)
        for code in FCMErrorCode.known {
            let response = FCMResponse(status: code.status!, errorCode: code, message: "Request contains an invalid argument.")
            #expect(Self.kind(policy.decide(.rejected(response), attempt: 1, using: &random)) == Self.table[code], "\(code)")
        }
    }

    @Test func unregisteredRemovesTheTokenWithoutATimestamp() {
        #expect(policy.decide(.rejected(FCMResponse(status: 404, errorCode: .unregistered)), attempt: 1) == .removeToken(since: nil))
    }

    @Test(arguments: [
        "The registration token is not a valid FCM registration token",
        "Invalid registration token provided. Make sure it matches the registration token the client app receives from registering with FCM.",
        "Invalid value at 'message.token' (TYPE_STRING)",
    ])
    func anInvalidArgumentAboutTheTokenDeactivatesIt(_ message: String) {
        #expect(
            policy.decide(.rejected(FCMResponse(status: 400, errorCode: .invalidArgument, message: message)), attempt: 1)
                == .deactivateToken)
    }

    @Test(arguments: [
        "Invalid value at 'message.android.ttl' (type.googleapis.com/google.protobuf.Duration), Field 'ttl', Illegal duration format",
        "Invalid JSON payload received. Unknown name \"colour\" at 'message.android.notification': Cannot find field.",
    ])
    func anInvalidArgumentAboutTheMessageFailsIt(_ message: String) {
        let decision = policy.decide(.rejected(FCMResponse(status: 400, errorCode: .invalidArgument, message: message)), attempt: 1)
        guard case .fail(let why) = decision else {
            Issue.record("expected fail, got \(decision)")
            return
        }
        #expect(why.contains("INVALID_ARGUMENT"))
        #expect(why.contains(String(message.prefix(40))))
    }

    @Test func quotaExceededStartsHighAndDoubles() {
        var random = FixedRandom(value: 0)  // the least jitter: half of the delay
        let quota = FCMOutcome.rejected(FCMResponse(status: 429, errorCode: .quotaExceeded))
        #expect(policy.decide(quota, attempt: 1, using: &random) == .retry(after: .seconds(30)))
        #expect(policy.decide(quota, attempt: 2, using: &random) == .retry(after: .seconds(60)))
        #expect(policy.decide(quota, attempt: 3, using: &random) == .retry(after: .seconds(60)))  // capped at 120 s, halved
        #expect(Self.kind(policy.decide(quota, attempt: 4, using: &random)) == "fail")
    }

    @Test func retryAfterIsHonouredUpToTheCap() {
        var random = FixedRandom(value: 0)
        let quota = FCMOutcome.rejected(FCMResponse(status: 429, errorCode: .quotaExceeded, retryAfterSeconds: 90))
        #expect(policy.decide(quota, attempt: 1, using: &random) == .retry(after: .seconds(90)))
        let unavailable = FCMOutcome.rejected(FCMResponse(status: 503, errorCode: .unavailable, retryAfterSeconds: 10))
        #expect(policy.decide(unavailable, attempt: 1, using: &random) == .retry(after: .seconds(10)))
        let long = FCMOutcome.rejected(FCMResponse(status: 500, errorCode: .internal, retryAfterSeconds: 3600))
        #expect(policy.decide(long, attempt: 1, using: &random) == .retry(after: .seconds(120)))
    }

    @Test func anOutageBacksOffFromTheBaseDelay() {
        var random = FixedRandom(value: 0)
        let unavailable = FCMOutcome.rejected(FCMResponse(status: 503, errorCode: .unavailable))
        #expect(policy.decide(unavailable, attempt: 1, using: &random) == .retry(after: .milliseconds(100)))
        #expect(policy.decide(unavailable, attempt: 2, using: &random) == .retry(after: .milliseconds(200)))
        let internalError = FCMOutcome.rejected(FCMResponse(status: 500, errorCode: .internal))
        #expect(Self.kind(policy.decide(internalError, attempt: 4, using: &random)) == "fail")
    }

    @Test func unknownCodesAreDecidedByStatus() {
        var random = FixedRandom(value: 0)
        let cases: [(Int, String)] = [
            (400, "fail"), (401, "abort"), (403, "abort"), (404, "fail"), (429, "retry"), (500, "retry"), (502, "retry"),
        ]
        for (status, expected) in cases {
            let coded = FCMOutcome.rejected(FCMResponse(status: status, errorCode: .unknown("SOMETHING_NEW")))
            #expect(Self.kind(policy.decide(coded, attempt: 1, using: &random)) == expected, "\(status) with a code")
            let bare = FCMOutcome.rejected(FCMResponse(status: status))
            #expect(Self.kind(policy.decide(bare, attempt: 1, using: &random)) == expected, "\(status) without a code")
        }
    }

    @Test func transportFailuresAreTreatedAsForAPNs() {
        var random = FixedRandom(value: 0)
        let cases: [(FCMTransportError.Kind, Int, String)] = [
            (.connect, 7, "retry"), (.timeout, 28, "retry"), (.streamReset, 92, "retry"), (.connectionLost, 56, "retry"),
            (.tls, 35, "retry"), (.tls, 60, "abort"), (.cancelled, -1, "fail"), (.other, 3, "fail"),
            (.credentials, 0, "abort"), (.tokenUnavailable, 0, "retry"),
        ]
        for (kind, code, expected) in cases {
            let outcome = FCMOutcome.failed(FCMTransportError(kind: kind, curlCode: code, message: "x"))
            #expect(Self.kind(policy.decide(outcome, attempt: 1, using: &random)) == expected, "\(kind)")
        }
        let refused = FCMOutcome.failed(
            FCMTransportError(kind: .credentials, curlCode: 0, message: "invalid_grant: Invalid JWT Signature."))
        #expect(policy.decide(refused, attempt: 1) == .abort("no FCM access token: invalid_grant: Invalid JWT Signature."))
    }

    @Test func deliveredIsDone() {
        #expect(policy.decide(.delivered(FCMDelivery(body: Array(#"{"name":"projects/p/messages/1"}"#.utf8))), attempt: 1) == .done)
    }
}
