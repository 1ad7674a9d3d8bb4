import HeraldCurl
import Testing

@testable import HeraldFCM

@Suite struct ResponseTests {
    static func errorBody(code: Int, status: String, message: String, fcmError: String?) -> [UInt8] {
        let details =
            fcmError.map {
                #"[{"@type":"type.googleapis.com/google.firebase.fcm.v1.FcmError","errorCode":"\#($0)"}]"#
            } ?? "[]"
        return Array(#"{"error":{"code":\#(code),"message":"\#(message)","status":"\#(status)","details":\#(details)}}"#.utf8)
    }

    @Test func theFCMErrorDetailWinsOverTheStatus() {
        let body = Self.errorBody(code: 404, status: "NOT_FOUND", message: "Requested entity was not found.", fcmError: "UNREGISTERED")
        let response = FCMResponse(status: 404, body: body, retryAfter: nil)
        #expect(response == FCMResponse(status: 404, errorCode: .unregistered, message: "Requested entity was not found."))
    }

    @Test func withoutADetailTheStatusIsTheCode() {
        let body = Self.errorBody(
            code: 401, status: "UNAUTHENTICATED", message: "Request had invalid authentication credentials.", fcmError: nil)
        #expect(FCMResponse(status: 401, body: body, retryAfter: nil).errorCode == .unauthenticated)
    }

    @Test func otherDetailsAreSkipped() {
        let body = Array(
            #"""
            {"error":{"code":400,"message":"The registration token is not a valid FCM registration token","status":"INVALID_ARGUMENT",
            "details":[{"@type":"type.googleapis.com/google.rpc.BadRequest","fieldViolations":[{"field":"message.token"}]},
            {"@type":"type.googleapis.com/google.firebase.fcm.v1.FcmError","errorCode":"INVALID_ARGUMENT"}]}}
            """#.utf8)
        let response = FCMResponse(status: 400, body: body, retryAfter: nil)
        #expect(response.errorCode == .invalidArgument)
        #expect(response.message == "The registration token is not a valid FCM registration token")
    }

    @Test func retryAfterIsReadAsSeconds() {
        let body = Self.errorBody(code: 429, status: "RESOURCE_EXHAUSTED", message: "Quota exceeded.", fcmError: "QUOTA_EXCEEDED")
        #expect(FCMResponse(status: 429, body: body, retryAfter: " 42 ").retryAfterSeconds == 42)
        #expect(FCMResponse(status: 429, body: body, retryAfter: "Wed, 21 Oct 2015 07:28:00 GMT").retryAfterSeconds == nil)
        #expect(FCMResponse(status: 429, body: body, retryAfter: "-3").retryAfterSeconds == nil)
    }

    @Test func aBodyThatIsNotGoogleJSONLeavesOnlyTheStatus() {
        #expect(FCMResponse(status: 502, body: Array("<html>Bad Gateway</html>".utf8), retryAfter: nil) == FCMResponse(status: 502))
    }

    @Test func unknownCodesAreKept() {
        #expect(FCMErrorCode("APNS_AUTH_ERROR") == .unknown("APNS_AUTH_ERROR"))
        for code in FCMErrorCode.known { #expect(FCMErrorCode(code.name) == code) }
    }

    @Test func aFinishedTransferBecomesAnOutcome() {
        let delivered = FCMClient.outcome(
            of: CurlCompletion(code: 0, status: 200, body: Array(#"{"name":"projects/herald-test/messages/0:1"}"#.utf8), errorText: ""))
        guard case .delivered(let answer) = delivered else {
            Issue.record("a 200 is not delivered: \(delivered)")
            return
        }
        #expect(answer.messageName == "projects/herald-test/messages/0:1")
        #expect(FCMDelivery(body: Array("{}".utf8)).messageName == nil)
        #expect(FCMDelivery(body: Array("not json".utf8)).messageName == nil)

        let body = Self.errorBody(
            code: 503, status: "UNAVAILABLE", message: "The service is currently unavailable.", fcmError: "UNAVAILABLE")
        let rejected = FCMClient.outcome(of: CurlCompletion(code: 0, status: 503, body: body, headers: ["retry-after": "7"], errorText: ""))
        #expect(
            rejected
                == .rejected(
                    FCMResponse(
                        status: 503, errorCode: .unavailable, message: "The service is currently unavailable.", retryAfterSeconds: 7)))

        let failed = FCMClient.outcome(of: CurlCompletion(code: 7, status: 0, body: [], errorText: "Failed to connect"))
        #expect(failed == .failed(FCMTransportError(kind: .connect, curlCode: 7, message: "Failed to connect")))
        let cancelled = FCMClient.outcome(of: CurlCompletion(code: -1, status: 0, body: [], errorText: "the FCM client was shut down"))
        #expect(cancelled == .failed(FCMTransportError(kind: .cancelled, curlCode: -1, message: "the FCM client was shut down")))
    }

    @Test func onlyAnAccessTokenProblemIsRetriedWithANewToken() {
        #expect(FCMClient.isStaleAccessToken(FCMResponse(status: 401, errorCode: .unauthenticated)))
        #expect(FCMClient.isStaleAccessToken(FCMResponse(status: 401)))
        #expect(!FCMClient.isStaleAccessToken(FCMResponse(status: 401, errorCode: .thirdPartyAuthError)))
        #expect(!FCMClient.isStaleAccessToken(FCMResponse(status: 403, errorCode: .permissionDenied)))
    }

    @Test func curlCodesAreSortedOnceForEveryProvider() {
        #expect(FCMTransportError.Kind(curlCode: 7) == .connect)
        #expect(FCMTransportError.Kind(curlCode: 6) == .connect)
        #expect(FCMTransportError.Kind(curlCode: 28) == .timeout)
        #expect(FCMTransportError.Kind(curlCode: 60) == .tls)
        #expect(FCMTransportError.Kind(curlCode: 92) == .streamReset)
        #expect(FCMTransportError.Kind(curlCode: 18) == .streamReset)
        #expect(FCMTransportError.Kind(curlCode: 56) == .connectionLost)
        #expect(FCMTransportError.Kind(curlCode: -1) == .cancelled)
        #expect(FCMTransportError.Kind(curlCode: 3) == .other)
        #expect(FCMTransportError(curlCode: 35, message: "").kind == .tls)
    }
}
