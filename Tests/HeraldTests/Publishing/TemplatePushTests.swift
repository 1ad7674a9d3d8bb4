import APNsMock
import FCMMock
import Foundation
import HeraldCore
import HeraldStore
import Hummingbird
import HummingbirdTesting
import Testing

/// A push with a stored template, end to end (issue 24): the admin stores it, the server key pushes with
/// values, and the mock APNs and FCM receive what the Backendless SDKs recognise: `template_name`, the
/// filled texts, `mutable-content` on iOS, a data message with `message` on Android; only the template's
/// audience gets it, each device once.
@Suite struct TemplatePushTests {
    static let admin = "/shop/k-admin/admin/pushtemplates"

    static func payload(_ notification: APNsMockNotification) throws -> JSONValue {
        try JSONValue.parse(Array(notification.payload.utf8))
    }

    @Test(arguments: PublishHarness.Database.available)
    func aTemplatePushArrivesAsTheSDKsExpectOnBothPlatforms(_ database: PublishHarness.Database) async throws {
        try await PublishHarness.with(database: database, fcm: true) { h in
            let fcm = try #require(h.fcmMock)
            try await h.registerDevices(0..<3, channels: ["deals"])
            try await MixedChannelTests.registerAndroid(h, 0..<2, channel: "deals")
            // Not in the audience: another channel.
            try await h.registerDevices(10..<12, channels: ["other"])
            let put = try await h.client.call(
                .put, Self.admin + "/spring-sale",
                json: """
                    {"message": "Hi {user}, {percent}% off", "audience": {"channels": ["deals"]},
                     "ios": {"alertTitle": "Sale for {user}", "alertSubtitle": "today", "badge": 2, "sound": "chime.caf",
                             "attachmentUrl": "https://cdn.example.com/a.png", "customHeaders": {"deal": "{deal}"}},
                     "android": {"contentTitle": "Sale for {user}", "summarySubText": "{unknown}", "priority": 4,
                                 "customHeaders": {"deal": "{deal}"}}}
                    """)
            #expect(put.status == .created, "\(put.body)")
            let pushed = try await h.client.call(
                .post, PublishHarness.publish + "/push/spring-sale",
                json: #"{"templateValues": {"user": "Ana", "percent": 20, "deal": "D-7"}}"#)
            #expect(pushed.status == .ok && pushed.body["status"] == .string("scheduled"), "\(pushed.body)")
            let id = try #require(pushed.body["messageId"].flatMap { if case .string(let id) = $0 { id } else { nil } })
            let status = try await h.waitFor(id, status: "published")
            #expect(status.delivery("sent") == 5)
            #expect(status["templateName"] == .string("spring-sale"))

            let notifications = h.mock.notifications()
            #expect(Set(notifications.map(\.token)) == Set((0..<3).map(PublishHarness.token)))
            let apns = try Self.payload(try #require(notifications.first))
            #expect(apns["template_name"] == .string("spring-sale"))
            #expect(apns["message"] == .string("Hi Ana, 20% off"))
            #expect(apns["ios-alert-title"] == .string("Sale for Ana") && apns["ios-alert-subtitle"] == .string("today"))
            #expect(apns["attachment-url"] == .string("https://cdn.example.com/a.png"))
            #expect(apns["deal"] == .string("D-7"))
            #expect(apns["aps"]?["mutable-content"] == .integer(1))
            #expect(
                apns["aps"]?["alert"]
                    == .object(["title": .string("Sale for Ana"), "subtitle": .string("today"), "body": .string("Hi Ana, 20% off")]))
            #expect(apns["aps"]?["badge"] == .integer(2) && apns["aps"]?["sound"] == .string("chime.caf"))
            #expect(notifications.first?.headers["apns-push-type"] == "alert")

            let messages = fcm.messages(token: nil)
            #expect(Set(messages.compactMap(\.token)) == Set((0..<2).map(MixedChannelTests.androidToken)))
            let android = try #require(messages.first).message
            #expect(android["notification"] == nil, "a data message: the SDK's service shows it through the template")
            #expect(android["data"]?["template_name"] == .string("spring-sale"))
            #expect(android["data"]?["message"] == .string("Hi Ana, 20% off"))
            #expect(android["data"]?["android-content-title"] == .string("Sale for Ana"))
            #expect(android["data"]?["android-summary-subtext"] == .string("{unknown}"), "an unknown placeholder stays as written")
            #expect(android["data"]?["deal"] == .string("D-7"))
            #expect(android["android"]?["priority"] == .string("HIGH"))

            // The devices' history names the template.
            let history = try await h.client.call(.get, "/shop/k-server/devices/dev-0/deliveries")
            #expect(history.body["deliveries"]?[0]?["templateName"] == .string("spring-sale"), "\(history.body)")
        }
    }

    @Test(arguments: PublishHarness.Database.available)
    func anAudienceOfSeveralChannelsOrNoneReachesEachDeviceOnceAndOnlyItsSystems(_ database: PublishHarness.Database) async throws {
        try await PublishHarness.with(database: database, fcm: true) { h in
            let fcm = try #require(h.fcmMock)
            try await h.registerDevices(0..<4, channels: ["news", "deals"])
            try await h.registerDevices(4..<6, channels: ["deals"])
            try await h.registerDevices(6..<8, channels: ["other"])
            try await MixedChannelTests.registerAndroid(h, 0..<3, channel: "news")
            _ = try await h.client.call(
                .put, Self.admin + "/two", json: #"{"message": "two", "audience": {"channels": ["news", "deals"], "os": "IOS"}}"#)
            let two = try await h.client.call(.post, PublishHarness.publish + "/push/two", json: "{}")
            let twoId = try #require(two.body["messageId"].flatMap { if case .string(let id) = $0 { id } else { nil } })
            let twoStatus = try await h.waitFor(twoId, status: "published")
            #expect(twoStatus.delivery("sent") == 6, "\(twoStatus)")
            #expect(h.mock.notifications().count == 6, "devices in both channels get it once")
            #expect(fcm.messages(token: nil).isEmpty, "the audience is iOS only")

            _ = try await h.client.call(.put, Self.admin + "/everyone", json: #"{"message": "all"}"#)
            let all = try await h.client.call(.post, PublishHarness.publish + "/push/everyone")
            let allId = try #require(all.body["messageId"].flatMap { if case .string(let id) = $0 { id } else { nil } })
            let allStatus = try await h.waitFor(allId, status: "published")
            #expect(allStatus.delivery("sent") == 11, "every device of the app: 8 iOS and 3 Android")
            #expect(fcm.messages(token: nil).count == 3)
        }
    }
}
