import APNsMock
import FCMMock
import Foundation
import HeraldCore
import HeraldStore
import Hummingbird
import HummingbirdTesting
import Testing

/// One channel of Apple and Android devices: publish → dispatcher → APNs for IOS, FCM for ANDROID, in one
/// fan-out with one checkpoint, against both mocks over TLS.
@Suite struct MixedChannelTests {
    /// Distinct FCM-shaped registration tokens.
    static func androidToken(_ index: Int) -> String { "fcm-token-\(index)-" + String(repeating: "x", count: 40) }

    static func registerAndroid(_ h: PublishHarness.Harness, _ range: Range<Int>, channel: String = "news") async throws {
        for index in range {
            let body =
                #"{"deviceToken": "\#(androidToken(index))", "deviceId": "droid-\#(index)", "os": "ANDROID", "channels": ["\#(channel)"]}"#
            let request = try RegistrationRequest(json: try JSONValue.parse(Array(body.utf8)), now: h.clock.now)
            _ = try await h.store.register(app: "shop", request, now: h.clock.now)
        }
    }

    @Test(arguments: PublishHarness.Database.available)
    func everyDeviceGetsItsServicesMappedPayloadOnce(_ database: PublishHarness.Database) async throws {
        try await PublishHarness.with(database: database, fcm: true) { h in
            let fcm = try #require(h.fcmMock)
            try await h.registerDevices(0..<30)
            try await Self.registerAndroid(h, 0..<20)
            let id = try await h.publish(
                "news",
                """
                {"message": "Hello", "headers": {"ios-alert-title": "Hi", "android-content-title": "Hi droid",
                 "android-channel-id": "offers", "android-priority": "high", "android-ttl": 600, "orderId": "42"}}
                """)
            let status = try await h.waitFor(id, status: "published")
            #expect(status.delivery("sent") == 50)
            #expect(status.delivery("failed") == 0)
            #expect(status.platform("ios", "sent") == 30)
            #expect(status.platform("android", "sent") == 20)
            #expect(status.platform("android", "failed") == 0)
            #expect(h.mock.notifications().count == 30)
            #expect(Set(h.mock.notifications().map(\.token)) == Set((0..<30).map(PublishHarness.token)))
            let messages = fcm.messages(token: nil)
            #expect(messages.count == 20)
            #expect(Set(messages.compactMap(\.token)) == Set((0..<20).map(Self.androidToken)))
            let message = try #require(messages.first).message
            #expect(message["notification"]?["title"] == .string("Hi droid"))
            #expect(message["notification"]?["body"] == .string("Hello"))
            #expect(message["android"]?["priority"] == .string("HIGH"))
            #expect(message["android"]?["ttl"] == .string("600s"))
            #expect(message["android"]?["notification"]?["channel_id"] == .string("offers"))
            #expect(message["data"]?["orderId"] == .string("42"))
            // One access token served every send.
            #expect(fcm.stats().tokenRequests == 1)
        }
    }

    @Test func unregisteredAndroidTokensAreRemovedAndWrongOnesDeactivated() async throws {
        try await PublishHarness.with(fcm: true) { h in
            let fcm = try #require(h.fcmMock)
            try await Self.registerAndroid(h, 0..<10)
            fcm.script(token: Self.androidToken(3), .reject(.unregistered, retryAfter: nil), times: 1)
            fcm.script(token: Self.androidToken(4), .reject(.senderIDMismatch, retryAfter: nil), times: 1)
            let id = try await h.publish("news", #"{"message": "Hello"}"#)
            let status = try await h.waitFor(id, status: "published")
            #expect(status.delivery("sent") == 8)
            #expect(status.delivery("tokensRemoved") == 1)
            #expect(status.delivery("tokensDeactivated") == 1)
            #expect(status.platform("android", "sent") == 8)
            #expect(status.platform("android", "failed") == 2)
            #expect(status.platform("android", "tokensRemoved") == 1)
            #expect(status.platform("android", "tokensDeactivated") == 1)
            #expect(status.platform("ios", "failed") == 0)
            let again = try await h.publish("news", #"{"message": "Again"}"#)
            let second = try await h.waitFor(again, status: "published")
            #expect(second.delivery("sent") == 8, "the removed and the deactivated device are not sent to again")
        }
    }

    /// A token FCM calls invalid (INVALID_ARGUMENT naming the registration token) deactivates its device;
    /// an APNs refusal in the same fan-out is counted on the iOS side.
    @Test func anInvalidRegistrationTokenDeactivatesTheDevice() async throws {
        try await PublishHarness.with(fcm: true) { h in
            let fcm = try #require(h.fcmMock)
            try await h.registerDevices(0..<4)
            try await Self.registerAndroid(h, 0..<4)
            // Herald stores any Android token; FCM's own check refuses this one ('.' and '=' are not in its alphabet).
            let body = #"{"deviceToken": "not.a.token==", "deviceId": "droid-bad", "os": "ANDROID", "channels": ["news"]}"#
            _ = try await h.store.register(
                app: "shop", try RegistrationRequest(json: try JSONValue.parse(Array(body.utf8)), now: h.clock.now), now: h.clock.now)
            h.mock.script(token: PublishHarness.token(2), .badDeviceToken, times: 1)
            let id = try await h.publish("news", #"{"message": "Hello"}"#)
            let status = try await h.waitFor(id, status: "published")
            #expect(status.delivery("sent") == 7)
            #expect(status.delivery("tokensDeactivated") == 2)
            #expect(status.platform("android", "tokensDeactivated") == 1)
            #expect(status.platform("android", "sent") == 4)
            #expect(status.platform("ios", "tokensDeactivated") == 1)
            #expect(status.platform("ios", "sent") == 3)
            #expect(fcm.messages(token: nil).count == 4, "the refused send is not recorded as a message")
            let record = try await h.client.call(.get, "/shop/k-admin/devices/droid-bad")
            #expect(record.body["isActive"] == .bool(false))
            #expect(record.body["deactivatedBy"] == .string("fcm"))
            #expect(try await h.client.call(.get, "/shop/k-admin/devices/dev-2").body["deactivatedBy"] == .string("apns"))
            let again = try await h.publish("news", #"{"message": "Again"}"#)
            #expect(try await h.waitFor(again, status: "published").delivery("sent") == 7, "neither refused device is sent to again")
        }
    }

    @Test func quotaAndUnavailableAreRetriedToSuccess() async throws {
        try await PublishHarness.with(fcm: true) { h in
            let fcm = try #require(h.fcmMock)
            try await Self.registerAndroid(h, 0..<5)
            fcm.failNextSends(2, with: .unavailable, retryAfter: 0)
            let id = try await h.publish("news", #"{"message": "Hello"}"#)
            let status = try await h.waitFor(id, status: "published", timeout: .seconds(60))
            #expect(status.delivery("sent") == 5)
            #expect(fcm.messages(token: nil).count == 5)
        }
    }

    @Test func quotaExceededWaitsForRetryAfter() async throws {
        try await PublishHarness.with(fcm: true) { h in
            let fcm = try #require(h.fcmMock)
            try await Self.registerAndroid(h, 0..<3)
            fcm.script(token: Self.androidToken(1), .reject(.quotaExceeded, retryAfter: 1), times: 1)
            let started = ContinuousClock.now
            let id = try await h.publish("news", #"{"message": "Hello"}"#)
            let status = try await h.waitFor(id, status: "published", timeout: .seconds(60))
            #expect(status.delivery("sent") == 3)
            #expect(ContinuousClock.now - started >= .seconds(1), "the retry waited for Retry-After")
            #expect(fcm.messages(token: Self.androidToken(1)).count == 1)
        }
    }

    @Test func aRefusedServiceAccountFailsTheMessage() async throws {
        try await PublishHarness.with(fcm: true) { h in
            let fcm = try #require(h.fcmMock)
            fcm.refuseServiceAccount("herald-test@herald-test.iam.gserviceaccount.com")
            try await Self.registerAndroid(h, 0..<3)
            let id = try await h.publish("news", #"{"message": "Hello"}"#)
            let status = try await h.waitFor(id, status: "failed", timeout: .seconds(60))
            guard case .string(let reason)? = status["errorMessage"] else {
                Issue.record("no errorMessage in \(status)")
                return
            }
            #expect(reason.contains("access token"), "\(reason)")
            #expect(fcm.messages(token: nil).isEmpty)
        }
    }

    /// Access tokens that stop working between fan-outs: revoked (every send of the burst gets 401) or
    /// simply expired on the clock. Either way one new token serves every send, and nothing is lost.
    @Test func aStaleAccessTokenIsReplacedOnceForAllSends() async throws {
        try await PublishHarness.with(fcm: true, fcmTokenLifetime: 600) { h in
            let fcm = try #require(h.fcmMock)
            try await Self.registerAndroid(h, 0..<40)
            let first = try await h.publish("news", #"{"message": "One"}"#)
            #expect(try await h.waitFor(first, status: "published").delivery("sent") == 40)
            #expect(fcm.stats().tokenRequests == 1)

            fcm.revokeAccessTokens()
            let second = try await h.publish("news", #"{"message": "Two"}"#)
            #expect(try await h.waitFor(second, status: "published").delivery("sent") == 40)
            #expect(fcm.stats().tokenRequests == 2, "40 sends refused with 401 fetched one token between them")

            h.clock.advance(milliseconds: 601_000)
            let third = try await h.publish("news", #"{"message": "Three"}"#)
            #expect(try await h.waitFor(third, status: "published").delivery("sent") == 40)
            #expect(fcm.stats().tokenRequests == 3, "an expired token is replaced once, before the sends")
            #expect(fcm.messages(token: nil).count == 120)
        }
    }

    @Test func anAppWithAPNsOnlySendsToItsAppleDevicesAndSkipsAndroid() async throws {
        try await PublishHarness.with { h in
            try await h.registerDevices(0..<5)
            try await Self.registerAndroid(h, 0..<5)
            let id = try await h.publish("news", #"{"message": "Hello"}"#)
            let status = try await h.waitFor(id, status: "published")
            #expect(status.delivery("sent") == 5)
            #expect(h.mock.notifications().count == 5)
        }
    }
}
