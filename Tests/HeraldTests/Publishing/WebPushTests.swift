import APNsMock
import FCMMock
import Foundation
import HeraldCore
import HeraldStore
import HeraldWebPush
import Hummingbird
import HummingbirdTesting
import Testing
import WebPushMock

/// Browsers as a third platform: publish → dispatcher → Web Push, encrypted per subscription and signed
/// with the app's VAPID key, against the mock push service over TLS (which checks the token and decrypts
/// every body with the subscription's private key).
@Suite struct WebPushTests {
    /// Registers web devices `range` (ids "web-<i>", subscriptions "sub-<i>" at the mock) through the store.
    static func registerWeb(_ h: PublishHarness.Harness, _ range: Range<Int>, channel: String = "news") async throws {
        let mock = try #require(h.webPushMock)
        for index in range {
            let token = JSONValue.string(mock.subscription(id: "sub-\(index)"))
            let body = JSONValue.object([
                "deviceToken": token, "deviceId": .string("web-\(index)"), "os": .string("WEB"), "channels": .array([.string(channel)]),
            ])
            let request = try RegistrationRequest(
                json: body, now: h.clock.now, rules: DeviceToken.Rules(webPushHosts: PublishHarness.webPushSettings.hosts))
            _ = try await h.store.register(app: "shop", request, now: h.clock.now)
        }
    }

    /// The plaintext a mock message carries, as JSON.
    static func plaintext(_ message: WebPushMockMessage) throws -> JSONValue {
        try JSONValue.parse(try #require(message.plaintext))
    }

    @Test(arguments: PublishHarness.Database.available)
    func aMixedChannelReachesEachDeviceOnceOnItsService(_ database: PublishHarness.Database) async throws {
        try await PublishHarness.with(database: database, fcm: true, webPush: true) { h in
            let fcm = try #require(h.fcmMock)
            let web = try #require(h.webPushMock)
            try await h.registerDevices(0..<20)
            try await MixedChannelTests.registerAndroid(h, 0..<15)
            try await Self.registerWeb(h, 0..<25)
            let id = try await h.publish(
                "news",
                """
                {"message": "Your order shipped", "headers": {"ios-alert-title": "Shop", "android-content-title": "Shop",
                 "web-url": "https://shop.example.com/orders/42", "web-icon": "https://shop.example.com/icon.png",
                 "web-ttl": 600, "web-urgency": "high", "web-topic": "order-42", "orderId": 42}}
                """)
            let status = try await h.waitFor(id, status: "published")
            #expect(status.delivery("sent") == 60)
            #expect(status.platform("ios", "sent") == 20)
            #expect(status.platform("android", "sent") == 15)
            #expect(status.platform("web", "sent") == 25)
            #expect(status.platform("web", "failed") == 0)
            #expect(h.mock.notifications().count == 20)
            #expect(fcm.messages(token: nil).count == 15)
            let pushes = web.messages()
            #expect(pushes.count == 25, "each browser once")
            #expect(Set(pushes.map(\.subscriptionID)) == Set((0..<25).map { "sub-\($0)" }))
            let first = try #require(pushes.first)
            // Decrypted by the mock with the subscription's private key: the JSON the service worker reads.
            #expect(
                try Self.plaintext(first)
                    == .object([
                        "title": .string("Shop"), "body": .string("Your order shipped"),
                        "url": .string("https://shop.example.com/orders/42"), "icon": .string("https://shop.example.com/icon.png"),
                        "data": .object(["orderId": .integer(42)]),
                    ]))
            #expect(first.ttl == 600)
            #expect(first.urgency == "high")
            #expect(first.topic == "order-42")
            #expect(first.vapidSubject == "mailto:tests@herald.example")
            #expect(first.vapidAudience == web.origin())
            // Every body has its own ephemeral key and salt: no two records share their first 86 bytes.
            #expect(Set(pushes.map { Array($0.body.prefix(86)) }).count == 25)
            // One VAPID token served every send (the mock verifies a token once per connection).
            #expect(web.stats().vapidVerifications <= 2)
        }
    }

    @Test func goneSubscriptionsAreRemovedAndOthersStillServed() async throws {
        try await PublishHarness.with(apns: false, webPush: true) { h in
            let web = try #require(h.webPushMock)
            try await Self.registerWeb(h, 0..<10)
            web.script(subscription: "sub-3", .reject(status: 410, retryAfter: nil), times: 1)
            web.script(subscription: "sub-4", .reject(status: 404, retryAfter: nil), times: 1)
            let id = try await h.publish("news", #"{"message": "Hello"}"#)
            let status = try await h.waitFor(id, status: "published")
            #expect(status.delivery("sent") == 8)
            #expect(status.delivery("tokensRemoved") == 2)
            #expect(status.platform("web", "tokensRemoved") == 2)
            #expect(try await h.registration("web-3").status == .notFound, "the unsubscribed browser's registration is gone")
            let again = try await h.publish("news", #"{"message": "Again"}"#)
            let second = try await h.waitFor(again, status: "published")
            #expect(second.delivery("sent") == 8, "the removed subscriptions are not sent to again")
            #expect(web.messages(subscription: "sub-3").isEmpty)
        }
    }

    @Test func rateLimitsAndOutagesAreRetriedRefusalsFailTheirSends() async throws {
        try await PublishHarness.with(apns: false, webPush: true) { h in
            let web = try #require(h.webPushMock)
            try await Self.registerWeb(h, 0..<6)
            web.script(subscription: "sub-0", .reject(status: 429, retryAfter: 1), times: 1)
            web.script(subscription: "sub-1", .reject(status: 503, retryAfter: nil), times: 2)
            web.script(subscription: "sub-2", .reject(status: 403, retryAfter: nil))
            web.script(subscription: "sub-3", .reject(status: 413, retryAfter: nil))
            let id = try await h.publish("news", #"{"message": "Hello"}"#)
            let status = try await h.waitFor(id, status: "published")
            #expect(status.delivery("sent") == 4, "the 429 and the 503s were retried until accepted")
            #expect(status.platform("web", "failed") == 2)
            #expect(web.messages(subscription: "sub-0").count == 1)
            #expect(web.messages(subscription: "sub-1").count == 1)
            #expect(web.stats().byStatus["429"] == 1)
            #expect(web.stats().byStatus["503"] == 2)
            #expect(web.stats().byStatus["403"] == 1, "a refusal is not retried")
            let history = try await h.client.call(.get, "/shop/k-server/devices/web-2/deliveries").body
            guard case .string(let reason)? = history["deliveries"]?[0]?["reason"] else {
                Issue.record("the refused send has a reason in the history: \(history)")
                return
            }
            #expect(reason.contains("VAPID") && reason.contains("403"), "\(reason)")
        }
    }

    @Test func aPublishForBrowsersOnlyMayCarryDataWithoutAnAlert() async throws {
        try await PublishHarness.with(webPush: true) { h in
            let web = try #require(h.webPushMock)
            try await h.registerDevices(0..<3)
            try await Self.registerWeb(h, 0..<3)
            let id = try await h.publish(
                "news", #"{"message": {"order": 42}, "headers": {"web-title": "Order"}, "pushBroadcast": "FOR_WEB"}"#)
            let status = try await h.waitFor(id, status: "published")
            #expect(status.delivery("sent") == 3)
            #expect(h.mock.notifications().isEmpty, "Apple devices are not in the broadcast")
            let first = try #require(web.messages().first)
            #expect(
                try Self.plaintext(first)
                    == .object(["title": .string("Order"), "data": .object(["message": .object(["order": .integer(42)])])]))
            // The same message to every platform goes to browsers too, and not to Apple devices, where it
            // has nothing to show: the status says so (docs/publishing.md, "Object messages").
            let everyone = try await h.publish("news", #"{"message": {"order": 42}, "headers": {"web-title": "Order"}}"#)
            let shown = try await h.waitFor(everyone, status: "published")
            #expect(shown.delivery("sent") == 3 && shown.delivery("failed") == 0)
            #expect(h.mock.notifications().isEmpty)
            let reason = JSONValue.string("not sent: " + APNsContent.nothingToShow)
            #expect(shown["skipped"]?["IOS"] == reason)
            // Pushed only and to Apple devices only, it would reach no one: refused.
            let refused = try await h.post(
                "news",
                #"{"message": {"order": 42}, "headers": {"web-title": "Order"}, "publishPolicy": "PUSH", "pushBroadcast": "FOR_IOS"}"#)
            #expect(refused.status == .badRequest)
            #expect(refused.body["code"] == .integer(5041))
        }
    }

    @Test func overTheLimitIsRefusedAtPublish() async throws {
        try await PublishHarness.with(webPush: true) { h in
            let long = String(repeating: "x", count: 3990)
            let answer = try await h.post("news", #"{"message": "\#(long)", "pushBroadcast": "FOR_WEB"}"#)
            #expect(answer.status == .badRequest)
            #expect(answer.body["code"] == .integer(8000))
            #expect("\(answer.body["message"] ?? .null)".contains("payload"), "\(answer.body)")
        }
    }

    @Test func registrationChecksTheSubscriptionAndTheAppsHosts() async throws {
        try await PublishHarness.with(webPush: true) { h in
            let web = try #require(h.webPushMock)
            func register(_ token: JSONValue, app: String = "shop", key: String = "k-client") async throws -> (
                status: HTTPResponse.Status, body: JSONValue
            ) {
                let body = JSONValue.object(["deviceToken": token, "deviceId": .string("browser-1"), "os": .string("web")])
                let answer = try await h.client.call(
                    .post, "/\(app)/\(key)/messaging/registrations", json: String(decoding: try SortedJSON.bytes(body), as: UTF8.self))
                return (answer.status, answer.body)
            }
            let subscription = web.subscription(id: "browser-1")
            #expect(try await register(.string(subscription)).status == .ok)
            let device = try await h.device("browser-1")
            #expect(device["os"] == .string("WEB"))
            #expect(device["deviceToken"] == .string(subscription), "stored as sent")

            let badKey = subscription.replacingOccurrences(of: #""auth":""#, with: #""auth":"AA"#)
            let refused = try await register(.string(badKey))
            #expect(refused.status == .badRequest)
            #expect(refused.body["code"] == .integer(8008))
            #expect("\(refused.body["message"] ?? .null)".contains("deviceToken.keys.auth"), "\(refused.body)")
            let plain = try await register(.string(#"{"endpoint": "http://push.example.com/x", "keys": {}}"#))
            #expect("\(plain.body["message"] ?? .null)".contains("deviceToken.endpoint"), "\(plain.body)")
            let notJSON = try await register(.string("abc"))
            #expect(notJSON.body["code"] == .integer(8008))
            let long = try await register(.string(String(repeating: "a", count: 2049)))
            #expect(long.body["code"] == .integer(8000))
        }
        // An app without allowPrivateHosts refuses a loopback push service.
        try await TestHerald.with { h in
            let endpoint = #"{"endpoint": "https://127.0.0.1:9/push/a", "keys": {"p256dh": "x", "auth": "y"}}"#
            let body = JSONValue.object(["deviceToken": .string(endpoint), "deviceId": .string("b"), "os": .string("WEB")])
            let answer = try await h.client.call(
                .post, "/shop/k-client/messaging/registrations", json: String(decoding: try SortedJSON.bytes(body), as: UTF8.self))
            #expect(answer.status == .badRequest)
            #expect("\(answer.body["message"] ?? .null)".contains("loopback"), "\(answer.body)")
        }
    }
}
