import Foundation
import HeraldCurl
import Testing

@testable import HeraldAPNs

@Suite struct NotificationValidationTests {
    static let token = String(repeating: "ab", count: 32)

    func notification(
        token: String = token, payload: String = #"{"aps":{"alert":"hi"}}"#, pushType: APNsPushType = .alert,
        priority: APNsPriority? = nil, collapseID: String? = nil, topic: String = "com.example.herald"
    ) -> APNsNotification {
        APNsNotification(
            deviceToken: token, payload: APNsPayload(string: payload), pushType: pushType, topic: topic,
            priority: priority, collapseID: collapseID)
    }

    @Test func aGoodNotificationPasses() {
        #expect(notification().localRejection() == nil)
        // Tokens are hex of any length, either case.
        #expect(notification(token: String(repeating: "A1", count: 80)).localRejection() == nil)
        #expect(notification(token: "ab").localRejection() == nil)
    }

    @Test func tokensMustBeHex() {
        #expect(notification(token: "").localRejection() == .known(.missingDeviceToken))
        #expect(notification(token: "xyz").localRejection() == .known(.badDeviceToken))
        #expect(notification(token: "ab/../cd").localRejection() == .known(.badDeviceToken))
    }

    @Test func payloadLimitsFollowThePushType() {
        let filler = { (count: Int) in #"{"a":""# + String(repeating: "x", count: count - 8) + #""}"# }
        #expect(filler(4096).utf8.count == 4096)
        #expect(notification(payload: filler(4096)).localRejection() == nil)
        #expect(notification(payload: filler(4097)).localRejection() == .known(.payloadTooLarge))
        #expect(notification(payload: filler(5120), pushType: .voip).localRejection() == nil)
        #expect(notification(payload: filler(5121), pushType: .voip).localRejection() == .known(.payloadTooLarge))
        #expect(notification(payload: "").localRejection() == .known(.payloadEmpty))
    }

    @Test func collapseIDIsAtMost64Bytes() {
        #expect(notification(collapseID: String(repeating: "c", count: 64)).localRejection() == nil)
        #expect(notification(collapseID: String(repeating: "c", count: 65)).localRejection() == .known(.badCollapseId))
        // Bytes, not characters: 22 three-byte characters are 66 bytes.
        #expect(notification(collapseID: String(repeating: "€", count: 22)).localRejection() == .known(.badCollapseId))
    }

    @Test func backgroundPushesArePowerAware() {
        #expect(notification(pushType: .background, priority: .immediate).localRejection() == .known(.badPriority))
        #expect(notification(pushType: .background, priority: .powerConsiderate).localRejection() == nil)
        let unset = notification(pushType: .background)
        #expect(unset.localRejection() == nil)
        #expect(unset.headerLines.contains("apns-priority: 5"))
    }

    @Test func headersCarryEveryField() throws {
        let id = try #require(UUID(uuidString: "0B8C5D3E-7A5B-4F1E-9C2D-1E2F3A4B5C6D"))
        let n = APNsNotification(
            deviceToken: Self.token, payload: APNsPayload(string: "{}"), pushType: .voip, topic: "com.example.herald",
            priority: .immediate, expiration: 0, collapseID: "news", apnsID: id)
        #expect(
            n.headerLines == [
                "apns-push-type: voip", "apns-topic: com.example.herald.voip", "apns-priority: 10", "apns-expiration: 0",
                "apns-collapse-id: news", "apns-id: 0b8c5d3e-7a5b-4f1e-9c2d-1e2f3a4b5c6d",
            ])
        #expect(n.path == "/3/device/" + Self.token)
    }

    @Test func topicSuffixesAreAddedOnce() {
        let expected: [APNsPushType: String] = [
            .alert: "com.x", .background: "com.x", .mdm: "com.x", .voip: "com.x.voip", .complication: "com.x.complication",
            .fileprovider: "com.x.pushkit.fileprovider", .location: "com.x.location-query",
            .liveactivity: "com.x.push-type.liveactivity", .pushtotalk: "com.x.voip-ptt",
            .widgets: "com.x.push-type.widgets", .controls: "com.x.push-type.controls",
        ]
        #expect(Set(expected.keys) == Set(APNsPushType.allCases))
        for (type, topic) in expected {
            #expect(notification(pushType: type, topic: "com.x").apnsTopic == topic)
            #expect(notification(pushType: type, topic: topic).apnsTopic == topic)
        }
    }
}
