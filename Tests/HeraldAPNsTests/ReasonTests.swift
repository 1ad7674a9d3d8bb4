import HeraldCurl
import Testing

@testable import HeraldAPNs

@Suite struct ReasonTests {
    @Test func everyKnownReasonRoundTripsByName() {
        for reason in APNsReason.allKnown {
            #expect(APNsReason(reason.name) == reason)
            #expect(reason.status != nil)
        }
        #expect(APNsReason.allKnown.count == 31)
    }

    @Test func anUnknownReasonIsKeptNotLost() {
        #expect(APNsReason("SomethingNew") == .unknown("SomethingNew"))
        #expect(APNsReason("SomethingNew").name == "SomethingNew")
    }

    @Test func outcomeDecodesAPNsErrorBodies() {
        let gone = APNsClient.outcome(
            of: CurlCompletion(
                code: 0, status: 410, body: Array(#"{"reason":"Unregistered","timestamp":1700000000123}"#.utf8),
                headers: ["apns-id": "id-1"], errorText: ""))
        #expect(gone == .rejected(APNsResponse(status: 410, apnsID: "id-1", reason: .known(.unregistered), timestamp: 1_700_000_000_123)))
        let odd = APNsClient.outcome(
            of: CurlCompletion(code: 0, status: 400, body: Array("not json".utf8), errorText: ""))
        #expect(odd == .rejected(APNsResponse(status: 400)))
        let ok = APNsClient.outcome(
            of: CurlCompletion(code: 0, status: 200, body: [], headers: ["apns-id": "a", "apns-unique-id": "u"], errorText: ""))
        #expect(ok == .delivered(APNsResponse(status: 200, apnsID: "a", apnsUniqueID: "u")))
        let reset = APNsClient.outcome(
            of: CurlCompletion(code: 92, status: 0, body: [], errorText: "stream 5 was reset"))
        #expect(reset == .failed(APNsTransportError(kind: .streamReset, curlCode: 92, message: "stream 5 was reset")))
    }
}
