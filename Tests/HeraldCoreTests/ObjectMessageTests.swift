import Foundation
import HeraldCore
import Testing

/// An object message with no push content (`{"message": {"foo": "bar"}}`, the Backendless JS SDK's own
/// test): accepted, carried as data by FCM and Web Push, and not pushed to Apple devices, where it has
/// nothing to show; the contents say why. Refused (5041) only when it would reach no one: pushed only,
/// to Apple platforms only.
@Suite struct ObjectMessageTests {
    let now = Timestamp(milliseconds: 1_800_000_000_000)

    func parse(_ json: String) throws(HeraldFault) -> PublishRequest {
        try PublishRequest(json: try JSONValue.parse(Array(json.utf8)), now: now)
    }

    @Test func anObjectMessageToEveryoneIsAcceptedWithoutAnAPNsPush() throws {
        let request = try parse(#"{"message": {"foo": "bar"}}"#)
        #expect(request.policy == .both)
        let contents = try #require(request.contents)
        #expect(contents.apns == nil)
        #expect(contents.apnsSkipped == APNsContent.nothingToShow)
        #expect(contents.fcm != nil && contents.webPush != nil, "Android and browsers get it as data")
        #expect(contents.unsendable(to: request.broadcast) == nil)
    }

    @Test(arguments: [
        #"{"message": {"foo": "bar"}, "publishPolicy": "PUSH"}"#,
        #"{"message": {"foo": "bar"}, "publishPolicy": "PUSH", "pushBroadcast": "FOR_IOS|FOR_ANDROID"}"#,
        #"{"message": {"foo": "bar"}, "publishPolicy": "PUSH", "pushBroadcast": "FOR_WEB|FOR_OSX"}"#,
        #"{"message": {"foo": "bar"}, "pushBroadcast": "FOR_IOS"}"#,
        #"{"message": [1, 2], "publishPolicy": "BOTH", "pushBroadcast": 9}"#,
        #"{"message": 42}"#,
    ])
    func aPublishThatReachesSomeoneIsAccepted(_ body: String) throws {
        let request = try parse(body)
        #expect(request.contents?.apns == nil, "\(body)")
        #expect(request.contents?.apnsSkipped == APNsContent.nothingToShow, "\(body)")
    }

    @Test(arguments: [
        #"{"message": {"foo": "bar"}, "publishPolicy": "PUSH", "pushBroadcast": "FOR_IOS"}"#,
        #"{"message": {"foo": "bar"}, "publishPolicy": "PUSH", "pushBroadcast": 9}"#,
        #"{"message": true, "pushPolicy": "PUSH", "pushBroadcast": "FOR_OSX"}"#,
    ])
    func aPushOnlyToApplePlatformsWithNothingToShowIs5041(_ body: String) {
        #expect(throws: HeraldFault.self, "\(body)") { try parse(body) }
        do {
            _ = try parse(body)
        } catch {
            #expect(error.code == 5041)
            #expect(error.message.contains(APNsContent.nothingToShow), "\(error.message)")
        }
    }

    /// No Apple platform in the broadcast: nothing skipped to report, as before.
    @Test func withoutApplePlatformsNothingIsSkipped() throws {
        let request = try parse(#"{"message": {"foo": "bar"}, "publishPolicy": "PUSH", "pushBroadcast": "FOR_ANDROID|FOR_WEB"}"#)
        #expect(request.contents?.apns == nil)
        #expect(request.contents?.apnsSkipped == nil)
    }

    /// Only "nothing to show" is let go: a header APNs would refuse, or a payload over its limit, is
    /// still refused for an object message.
    @Test(arguments: [
        (#"{"message": {"foo": "bar"}, "headers": {"apns-priority": 7}}"#, 8008),
        (#"{"message": {"foo": "bar"}, "headers": {"aps": {"alert": "x"}}}"#, 8008),
        (#"{"message": {"foo": "bar"}, "headers": {"ios-badge": "many"}}"#, 8008),
        (#"{"message": {"foo": "bar"}, "headers": {"apns-collapse-id": "\#(String(repeating: "c", count: 65))"}}"#, 8000),
    ])
    func otherAPNsFaultsStayFaults(_ body: String, _ expected: Int) {
        do {
            _ = try parse(body)
            Issue.record("\(body) was accepted")
        } catch {
            #expect(error.code == expected, "\(body): \(error.message)")
        }
    }

    /// The reason is stored with the message, and a message stored before it decodes without one.
    @Test func theReasonIsStoredAndOldContentsStillDecode() throws {
        let contents = try #require(try parse(#"{"message": {"foo": "bar"}}"#).contents)
        #expect(try MessageContents(decoding: contents.encoded()) == contents)
        let string = try #require(try parse(#"{"message": "Hi"}"#).contents)
        #expect(string.apnsSkipped == nil && string.apns != nil)
        #expect(!string.encoded().contains("apnsSkipped"), "a message with an APNs push stores what it stored before")
    }

    /// A string message, or an object message with something for Apple devices, is pushed to them as before.
    @Test func somethingToShowStillMakesAnAPNsPush() throws {
        for body in [
            #"{"message": "Hi", "publishPolicy": "PUSH", "pushBroadcast": "FOR_IOS"}"#,
            #"{"message": {"foo": "bar"}, "headers": {"ios-content-available": 1}, "publishPolicy": "PUSH", "pushBroadcast": "FOR_IOS"}"#,
            #"{"message": {"foo": "bar"}, "headers": {"ios-alert-title": "Order"}}"#,
        ] {
            let contents = try #require(try parse(body).contents, "\(body)")
            #expect(contents.apns != nil && contents.apnsSkipped == nil, "\(body)")
        }
    }
}
