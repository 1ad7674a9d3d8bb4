import APNsMock
import FCMMock
import Foundation
import HeraldCore
import HeraldStore
import Hummingbird
import HummingbirdTesting
import Testing

/// `POST …/messaging/{channel}` with `{"message": {"foo": "bar"}}` (the Backendless JS SDK's own test:
/// an object message, no headers, no policy): answered as any publish, given to the channel's
/// subscribers, pushed as data to Android, and not pushed to Apple devices, which the status says.
@Suite struct ObjectMessageAPITests {
    static let reason = JSONValue.string("not sent: " + APNsContent.nothingToShow)

    @Test func anObjectMessageReachesSubscribersAndAndroidButNotApple() async throws {
        try await PublishHarness.with(fcm: true) { h in
            let fcm = try #require(h.fcmMock)
            try await h.registerDevices(0..<2)
            try await MixedChannelTests.registerAndroid(h, 0..<3)
            let subscribed = try await h.client.call(.post, "/shop/k-client/messaging/news/subscribe", json: "{}")
            guard case .string(let subscription)? = subscribed.body["subscriptionId"] else {
                throw HarnessError("no subscriptionId in \(subscribed.body)")
            }

            let answer = try await h.client.call(.post, PublishHarness.publish + "/news", json: #"{"message": {"foo": "bar"}}"#)
            #expect(answer.status == .ok)
            guard case .string(let id)? = answer.body["messageId"] else { throw HarnessError("no messageId in \(answer.body)") }
            #expect(answer.body == .object(["messageId": .string(id), "status": .string("scheduled"), "errorMessage": .null]))

            let polled = try await h.client.call(.get, "/shop/k-client/messaging/news/\(subscription)")
            guard case .array(let messages)? = polled.body["messages"] else { throw HarnessError("no messages in \(polled.body)") }
            #expect(messages.count == 1)
            #expect(messages.first?["messageId"] == .string(id))
            #expect(messages.first?["data"] == .object(["foo": .string("bar")]))

            let status = try await h.waitFor(id, status: "published")
            #expect(status.delivery("sent") == 3, "\(status)")
            #expect(status.delivery("failed") == 0, "Apple devices that got nothing are no failures")
            #expect(status.delivery("targeted") == 3)
            #expect(status.platform("ios", "sent") == 0)
            #expect(status["skipped"]?["IOS"] == Self.reason && status["skipped"]?["OSX"] == Self.reason, "\(status)")
            #expect(status["errorMessage"] == .null)
            #expect(h.mock.notifications().isEmpty, "nothing went to APNs")
            let sent = fcm.messages(token: nil)
            #expect(sent.count == 3)
            #expect(sent.first?.message["data"]?["message"] == .string(#"{"foo":"bar"}"#))
        }
    }

    /// Pushed only, to Apple devices only: nothing could come of it, so it is refused as before.
    @Test func aPushOnlyToAppleWithNothingToShowIsRefused() async throws {
        try await PublishHarness.with { h in
            for body in [
                #"{"message": {"foo": "bar"}, "publishPolicy": "PUSH", "pushBroadcast": "FOR_IOS"}"#,
                #"{"message": {"foo": "bar"}, "publishPolicy": "PUSH", "pushBroadcast": "FOR_IOS|FOR_OSX"}"#,
            ] {
                let answer = try await h.post("news", body)
                #expect(answer.status == .badRequest, "\(body)")
                #expect(answer.body.code == 5041, "\(body): \(answer.body)")
            }
            // With subscribers to reach as well, it is accepted.
            let id = try await h.publish("news", #"{"message": {"foo": "bar"}, "pushBroadcast": "FOR_IOS"}"#)
            #expect(try await h.waitFor(id, status: "published")["skipped"] == .object(["IOS": Self.reason]), "only IOS is targeted")
        }
    }
}
