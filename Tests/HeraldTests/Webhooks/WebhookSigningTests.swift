import Foundation
import HeraldWebhooks
import Testing

@Suite struct WebhookSigningTests {
    @Test func theSignatureIsAnHMACOfTheTimeAndTheBody() {
        let body = Array(#"{"id":"evt_1"}"#.utf8)
        let header = WebhookSignature.header(secret: "0123456789abcdef", timestamp: 1_700_000_000_000, body: body)
        // HMAC-SHA256("0123456789abcdef", "1700000000000.{"id":"evt_1"}"), computed with openssl dgst -sha256 -hmac.
        #expect(header == "t=1700000000000,v1=721feefaa424070244a77a1ff7885b01b4bae8474d74ab24be90eb540975b8e7")
        #expect(WebhookSignature.verify(header: header, secret: "0123456789abcdef", body: body))
        #expect(!WebhookSignature.verify(header: header, secret: "0123456789abcdeF", body: body))
        #expect(!WebhookSignature.verify(header: header, secret: "0123456789abcdef", body: body + [32]))
        #expect(
            !WebhookSignature.verify(header: header.replacingOccurrences(of: "t=17", with: "t=18"), secret: "0123456789abcdef", body: body))
    }

    @Test func retriesDoubleUpToTheCapAndHonourALongerRetryAfter() {
        let policy = WebhookRetryPolicy(baseMilliseconds: 1_000, maxMilliseconds: 60_000)
        #expect((1...8).map { policy.delay(afterAttempt: $0) } == [1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 60_000, 60_000])
        #expect(policy.delay(afterAttempt: 1_000) == 60_000, "no overflow")
        #expect(policy.delay(afterAttempt: 1, retryAfterSeconds: 30) == 30_000)
        #expect(policy.delay(afterAttempt: 6, retryAfterSeconds: 1) == 32_000, "a shorter Retry-After does not shorten the backoff")
        #expect(policy.delay(afterAttempt: 1, retryAfterSeconds: 86_400) == 60_000, "capped")
    }
}
