import HeraldCore
import HeraldCurl
import Testing

@testable import HeraldWebPush

/// A push service's error answer read into words and Retry-After, a finished transfer sorted into an
/// outcome, and the outcome in the fan-out's terms (issue 26).
@Suite struct WebPushResponseTests {
    static func response(_ body: String, status: Int = 400, retryAfter: String? = nil) -> WebPushResponse {
        WebPushResponse(status: status, body: Array(body.utf8), retryAfter: retryAfter)
    }

    @Test func theServicesWordsComeFromAJSONBody() {
        #expect(Self.response(#"{"message":"Request did not validate"}"#).message == "Request did not validate")
        #expect(Self.response(#"{"error":"UnauthorizedRegistration"}"#).message == "UnauthorizedRegistration")
        // autopush's shape: message is preferred over error.
        let autopush = #"{"code":410,"errno":106,"error":"Gone","message":"Request did not validate No such subscription"}"#
        #expect(Self.response(autopush, status: 410).message == "Request did not validate No such subscription")
        #expect(Self.response(#"{"message":"","error":"Bad Request"}"#).message == "Bad Request", "an empty message is none")
        #expect(Self.response(#"{"message":5,"error":"Bad Request"}"#).message == "Bad Request", "a message that is not text is none")
        #expect(Self.response(#"{"code":400}"#).message == nil)
        #expect(Self.response(#"{"message":"\#(String(repeating: "m", count: 300))"}"#).message?.count == 200)
    }

    @Test func aPlainTextBodyIsTheWordsAndHTMLIsIgnored() {
        #expect(Self.response("  invalid subscription\n").message == "invalid subscription")
        #expect(Self.response("<html><body><h1>403 Forbidden</h1></body></html>", status: 403).message == nil)
        #expect(Self.response("<!DOCTYPE html><html></html>", status: 502).message == nil)
        #expect(Self.response("").message == nil)
        #expect(Self.response(" \n ").message == nil)
        #expect(Self.response(String(repeating: "t", count: 500)).message?.count == 200)
    }

    @Test func retryAfterIsReadAsSecondsOnly() {
        #expect(Self.response("", status: 429, retryAfter: "30").retryAfterSeconds == 30)
        #expect(Self.response("", status: 429, retryAfter: " 30 ").retryAfterSeconds == 30)
        #expect(Self.response("", status: 503, retryAfter: "0").retryAfterSeconds == 0)
        #expect(Self.response("", status: 429, retryAfter: "Wed, 21 Oct 2015 07:28:00 GMT").retryAfterSeconds == nil)
        #expect(Self.response("", status: 429, retryAfter: "-5").retryAfterSeconds == nil)
        #expect(Self.response("", status: 429, retryAfter: "1.5").retryAfterSeconds == nil)
        #expect(Self.response("", status: 429, retryAfter: nil).retryAfterSeconds == nil)
        #expect(
            Self.response(#"{"message":"slow down"}"#, status: 429, retryAfter: "7")
                == WebPushResponse(status: 429, message: "slow down", retryAfterSeconds: 7))
    }

    @Test func aFinishedTransferIsSortedIntoAnOutcome() {
        let created = CurlCompletion(code: 0, status: 201, body: [], errorText: "")
        #expect(WebPushClient.outcome(of: created) == .delivered(status: 201))
        #expect(WebPushClient.outcome(of: created).isDelivered)
        let gone = CurlCompletion(code: 0, status: 410, body: Array(#"{"message":"expired"}"#.utf8), errorText: "")
        #expect(WebPushClient.outcome(of: gone) == .rejected(WebPushResponse(status: 410, message: "expired")))
        let throttled = CurlCompletion(code: 0, status: 429, body: [], headers: ["retry-after": "12"], errorText: "")
        #expect(WebPushClient.outcome(of: throttled) == .rejected(WebPushResponse(status: 429, retryAfterSeconds: 12)))
        let refused = CurlCompletion(code: 7, status: 0, body: [], errorText: "Couldn't connect to server")
        #expect(
            WebPushClient.outcome(of: refused)
                == .failed(WebPushTransportError(kind: .connect, curlCode: 7, message: "Couldn't connect to server")))
        #expect(!WebPushClient.outcome(of: refused).isDelivered)
    }

    @Test func aRejectionIsLabelledByItsStatus() {
        for status in [400, 401, 403, 404, 410, 413, 429, 500, 502, 503, 504] {
            let answer = WebPushMessageSender.answer(.rejected(WebPushResponse(status: status)), decision: .fail("x"))
            #expect(answer.reasonLabel == String(status))
            #expect(answer.outcome == .rejected)
            #expect(answer.reason == "status \(status)")
        }
        let forbidden = WebPushMessageSender.answer(
            .rejected(WebPushResponse(status: 403, message: "invalid JWT")), decision: .fail("refused"))
        #expect(forbidden.reasonLabel == "403")
        #expect(forbidden.reason == "403 invalid JWT")
        #expect(forbidden.decision == .fail("refused"), "the policy's decision, passed on")
        for status in [418, 402, 451, 599, 302] {
            let answer = WebPushMessageSender.answer(.rejected(WebPushResponse(status: status)), decision: .fail("x"))
            #expect(answer.reasonLabel == "unknown", "\(status): a bounded set of labels")
        }
    }

    @Test func deliveredAndFailedSendsCarryNoLabel() {
        let delivered = WebPushMessageSender.answer(.delivered(status: 201), decision: .done)
        #expect(delivered.outcome == .delivered && delivered.reason == nil && delivered.reasonLabel == nil)
        #expect(delivered.decision == .done)
        let failed = WebPushMessageSender.answer(
            .failed(WebPushTransportError(kind: .timeout, curlCode: 28, message: "timed out")), decision: .retry(after: .seconds(1)))
        #expect(failed.outcome == .failed && failed.reasonLabel == nil)
        #expect(failed.decision == .retry(after: .seconds(1)))
    }
}
