import HeraldCore
import HeraldCurl
import Testing

@testable import HeraldWebPush

/// A generator that always answers the same, so jittered delays are exact in assertions (0: the least
/// jitter, half of the delay; `.max`: just under the whole delay).
struct FixedRandom: RandomNumberGenerator {
    var value: UInt64
    mutating func next() -> UInt64 { value }
}

/// A seeded generator (SplitMix64), so a run over many draws is the same every time.
struct SeededRandom: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// What Web Push's answers lead to (issue 26): the whole table, Retry-After, giving up, and transport
/// failures; no sockets.
@Suite struct WebPushRetryPolicyTests {
    let policy = WebPushRetryPolicy(
        backoff: Backoff(maxAttempts: 4, baseDelay: .milliseconds(200), maxDelay: .seconds(120)), tooManyRequestsDelay: .seconds(10))

    func decide(_ outcome: WebPushOutcome, attempt: Int = 1, random: UInt64 = 0) -> DeliveryDecision {
        var generator = FixedRandom(value: random)
        return policy.decide(outcome, attempt: attempt, using: &generator)
    }

    func rejected(_ status: Int, _ message: String? = nil, retryAfter: Int? = nil) -> WebPushOutcome {
        .rejected(WebPushResponse(status: status, message: message, retryAfterSeconds: retryAfter))
    }

    func failed(_ kind: WebPushTransportError.Kind, _ code: Int, _ message: String = "x") -> WebPushOutcome {
        .failed(WebPushTransportError(kind: kind, curlCode: code, message: message))
    }

    /// The reason of a `fail` (or `abort`), or nil for another decision.
    static func reason(_ decision: DeliveryDecision) -> String? {
        switch decision {
        case .fail(let why), .abort(let why): why
        default: nil
        }
    }

    @Test(arguments: [201, 200, 202])
    func acceptedIsDone(_ status: Int) {
        #expect(decide(.delivered(status: status)) == .done)
        #expect(decide(.delivered(status: status), attempt: 4) == .done, "even on the last attempt")
    }

    @Test(arguments: [404, 410])
    func aGoneSubscriptionIsRemoved(_ status: Int) {
        #expect(decide(rejected(status)) == .removeToken(since: nil))
        #expect(decide(rejected(status, "push subscription has unsubscribed or expired."), attempt: 3) == .removeToken(since: nil))
    }

    @Test func aPayloadTooLargeFails() {
        let decision = decide(rejected(413, "Request Entity Too Large"))
        #expect(decision.name == "fail")
        #expect(Self.reason(decision)?.contains("413") == true && Self.reason(decision)?.contains("Request Entity Too Large") == true)
    }

    @Test func tooManyRequestsStartsFromItsOwnDelay() {
        let throttled = rejected(429)
        #expect(decide(throttled, attempt: 1) == .retry(after: .seconds(5)), "at least half of tooManyRequestsDelay")
        #expect(decide(throttled, attempt: 2) == .retry(after: .seconds(10)))
        #expect(decide(throttled, attempt: 3) == .retry(after: .seconds(20)))
        guard case .retry(let most) = decide(throttled, attempt: 1, random: .max) else {
            Issue.record("429 is retried")
            return
        }
        #expect(most >= .seconds(5) && most < .seconds(10), "\(most)")
    }

    @Test func tooManyRequestsHonoursRetryAfterUpToTheCap() {
        #expect(decide(rejected(429, retryAfter: 30)) == .retry(after: .seconds(30)))
        #expect(decide(rejected(429, retryAfter: 30), random: .max) == .retry(after: .seconds(30)))
        #expect(decide(rejected(429, retryAfter: 1)) == .retry(after: .seconds(5)), "never sooner than its own backoff")
        #expect(decide(rejected(429, retryAfter: 86_400)) == .retry(after: .seconds(120)), "capped at maxDelay")
    }

    @Test(arguments: [500, 502, 503, 504, 599])
    func anOutageBacksOffFromTheBaseDelay(_ status: Int) {
        #expect(decide(rejected(status), attempt: 1) == .retry(after: .milliseconds(100)))
        #expect(decide(rejected(status), attempt: 2) == .retry(after: .milliseconds(200)))
        #expect(decide(rejected(status), attempt: 3) == .retry(after: .milliseconds(400)))
        #expect(decide(rejected(status, retryAfter: 10)) == .retry(after: .seconds(10)), "Retry-After honoured")
        #expect(decide(rejected(status, retryAfter: 3600)) == .retry(after: .seconds(120)), "capped at maxDelay")
    }

    @Test(arguments: [400, 401, 403])
    func aRefusalFailsWithTheServicesWords(_ status: Int) {
        let words = "Request did not validate: invalid JWT (exp too far in the future)"
        let decision = decide(rejected(status, words))
        #expect(decision.name == "fail", "\(decision)")
        #expect(Self.reason(decision)?.contains(words) == true, "\(decision)")
        #expect(Self.reason(decision)?.contains("(\(status))") == true, "\(decision)")
        let bare = decide(rejected(status))
        #expect(bare.name == "fail" && Self.reason(bare)?.hasSuffix("(\(status))") == true, "\(bare)")
    }

    @Test(arguments: [405, 408, 418, 422, 301])
    func otherStatusesFail(_ status: Int) {
        #expect(decide(rejected(status)).name == "fail")
        #expect(decide(rejected(status, retryAfter: 5)).name == "fail", "a Retry-After alone does not make it retryable")
    }

    @Test func itGivesUpAfterTheLastAttempt() {
        for outcome in [rejected(503), rejected(500, retryAfter: 1), rejected(429), failed(.connect, 7), failed(.tls, 35)] {
            #expect(decide(outcome, attempt: 3).name == "retry", "\(outcome)")
            let last = decide(outcome, attempt: 4)
            #expect(last.name == "fail", "\(outcome)")
            #expect(Self.reason(last)?.contains("gave up after 4 attempts") == true, "\(last)")
            #expect(decide(outcome, attempt: 9).name == "fail", "\(outcome)")
        }
        #expect(Self.reason(decide(rejected(503, "busy"), attempt: 4))?.contains("503") == true)
    }

    @Test func transportFailures() {
        let cases: [(WebPushTransportError.Kind, Int, String)] = [
            (.connect, 7, "retry"), (.connect, 6, "retry"), (.timeout, 28, "retry"), (.streamReset, 92, "retry"),
            (.streamReset, 16, "retry"), (.connectionLost, 56, "retry"), (.tokenUnavailable, 0, "retry"), (.tls, 35, "retry"),
            (.tls, 60, "fail"), (.tls, 58, "fail"), (.credentials, 0, "abort"), (.cancelled, -1, "fail"), (.other, 0, "fail"),
            (.other, 3, "fail"),
        ]
        for (kind, code, expected) in cases {
            #expect(decide(failed(kind, code)).name == expected, "\(kind) (curl \(code))")
        }
        #expect(decide(failed(.connect, 7), attempt: 2) == .retry(after: .milliseconds(200)))
        let certificate = decide(failed(.tls, 60, "SSL certificate problem: unable to get local issuer certificate"))
        #expect(Self.reason(certificate)?.contains("unable to get local issuer certificate") == true, "\(certificate)")
        let credentials = decide(failed(.credentials, 0, "the key cannot sign"))
        #expect(credentials == .abort("the VAPID key cannot sign: the key cannot sign"))
        #expect(Self.reason(decide(failed(.other, 0, "the subscription cannot be used: bad")))?.contains("bad") == true)
    }

    @Test func theJitterStaysBetweenHalfAndAllOfTheDelay() {
        var random = SeededRandom(state: 26)
        var seen = Set<Duration>()
        for attempt in 1...3 {
            let full = Duration.milliseconds(200) * (1 << (attempt - 1))
            for _ in 0..<200 {
                guard case .retry(let delay) = policy.decide(rejected(503), attempt: attempt, using: &random) else {
                    Issue.record("503 is retried on attempt \(attempt)")
                    return
                }
                #expect(delay >= full / 2 && delay < full, "attempt \(attempt): \(delay)")
                seen.insert(delay)
            }
        }
        #expect(seen.count > 500, "the delays are spread, not one value")
    }

    @Test func theDefaultsAndTheSystemsGenerator() {
        let defaults = WebPushRetryPolicy()
        #expect(defaults.backoff.maxAttempts == 5 && defaults.tooManyRequestsDelay == .seconds(10))
        #expect(defaults.decide(.delivered(status: 201), attempt: 1) == .done)
        guard case .retry(let delay) = defaults.decide(rejected(429), attempt: 1) else {
            Issue.record("429 is retried")
            return
        }
        #expect(delay >= .seconds(5) && delay < .seconds(10), "\(delay)")
        #expect(defaults.decide(rejected(503), attempt: 5).name == "fail")
    }
}
