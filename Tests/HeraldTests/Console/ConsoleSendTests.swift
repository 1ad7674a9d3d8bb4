import Foundation
import HTTPTypes
import Herald
import HeraldCore
import HeraldStore
import HeraldTestSupport
import Hummingbird
import HummingbirdTesting
import Testing

/// The console's Send page (issue 25): the form becomes a publish through the publish route's checks,
/// the recipients are counted with the fan-out's own query before sending (exact, or an estimate when
/// counting would take over the budget), and errors come back as the API's message on the same form.
@Suite struct ConsoleSendTests {
    static func register(_ h: TestHerald.Harness, _ id: String, os: String, channels: [String], version: String = "1.0") async throws {
        try await register(h.client, id, os: os, channels: channels, version: version)
    }

    static func register(_ client: any TestClientProtocol, _ id: String, os: String, channels: [String], version: String = "1.0")
        async throws
    {
        let hex = id.utf8.map { String($0, radix: 16) }.joined()
        let token = os == "IOS" ? String(repeating: "0", count: 64 - hex.count) + hex : "fcm-\(id)-token"
        let answer = try await client.call(
            .post, "/shop/k-client/messaging/registrations",
            json: """
                {"deviceToken": "\(token)", "deviceId": "\(id)", "os": "\(os)", "channels": [\(channels.map { "\"\($0)\"" }.joined(separator: ","))],
                 "appVersion": "\(version)"}
                """)
        #expect(answer.status == .ok, "\(answer.body)")
    }

    static func post(_ h: TestHerald.Harness, _ cookie: String, _ fields: [String: String]) async throws -> ConsoleTests.Answer {
        try await post(h.client, cookie, fields)
    }

    static func post(_ client: any TestClientProtocol, _ cookie: String, _ fields: [String: String]) async throws -> ConsoleTests.Answer {
        let csrf = try await ConsoleTests.csrf(client, cookie)
        let form = (fields.merging(["csrf": csrf]) { $1 }).map {
            "\($0.key)=\($0.value.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")"
        }.joined(separator: "&")
        return try await ConsoleTests.send(client, .post, "/console/send", cookie: cookie, form: form)
    }

    /// On the whole server with APNs and FCM configured, on both databases: the count is what the fan-out
    /// would walk; without FCM settings the Android devices are not counted, and the page says why.
    @Test(arguments: PublishHarness.Database.available)
    func theRecipientsAreCountedExactlyByPlatformAcrossChannelsOnce(_ database: PublishHarness.Database) async throws {
        try await PublishHarness.with(database: database, fcm: true) { h in
            try await Self.register(h.client, "p1", os: "IOS", channels: ["news", "sale"])
            try await Self.register(h.client, "p2", os: "IOS", channels: ["news"], version: "2.5")
            try await Self.register(h.client, "a1", os: "ANDROID", channels: ["sale"], version: "2.5")
            try await Self.register(h.client, "elsewhere", os: "ANDROID", channels: ["other"])
            let cookie = try await ConsoleTests.login(h.client)
            let page = try await ConsoleTests.send(h.client, .get, "/console/send", cookie: cookie)
            #expect(page.status == .ok && page.body.components(separatedBy: "<h1>").count == 2)
            #expect(page.body.contains(#"aria-current="page">Send<"#))

            let both = try await Self.post(h.client, cookie, ["intent": "count", "message": "hi", "channels": "news, sale"])
            #expect(both.status == .ok)
            #expect(both.body.contains("<strong>3</strong> devices (iOS 2, Android 1), counted exactly."), "\(both.body)")
            let iosOnly = try await Self.post(
                h.client, cookie, ["intent": "count", "message": "hi", "channels": "news sale", "for-ios": "on"])
            #expect(iosOnly.body.contains("<strong>2</strong> devices (iOS 2), counted exactly"))
            let segment = try await Self.post(
                h.client, cookie, ["intent": "count", "message": "hi", "channels": "news,sale", "appVersionAtLeast": "2"])
            #expect(segment.body.contains("<strong>2</strong> devices (iOS 1, Android 1)"))
            let devices = try await Self.post(
                h.client, cookie, ["intent": "count", "message": "hi", "audience": "devices", "devices": "a1 elsewhere\nnobody"])
            #expect(devices.body.contains("<strong>2</strong> devices (Android 2)"))
            // The form comes back as it was posted.
            #expect(segment.body.contains(#"name="appVersionAtLeast" type="text" value="2""#))
        }
        try await PublishHarness.with(database: database) { h in
            try await Self.register(h.client, "p1", os: "IOS", channels: ["news"])
            try await Self.register(h.client, "a1", os: "ANDROID", channels: ["news"])
            let cookie = try await ConsoleTests.login(h.client)
            let count = try await Self.post(h.client, cookie, ["intent": "count", "message": "hi", "channels": "news"])
            #expect(
                count.body.contains(
                    "<strong>1</strong> devices (iOS 1), counted exactly. Not counted: Android devices, since this app has no FCM settings."
                ), "\(count.body)")
        }
    }

    @Test func sendingPublishesWhatTheFormSaysAndShowsTheMessage() async throws {
        try await TestHerald.with(file: false) { h in
            try await Self.register(h, "p1", os: "IOS", channels: ["news", "sale"])
            let cookie = try await ConsoleTests.login(h.client)
            let first = TestHerald.t0.milliseconds + 3_600_000
            let sent = try await Self.post(
                h, cookie,
                [
                    "intent": "send", "message": "Big sale", "title": "Today", "subtitle": "Only", "badge": "3", "sound": "chime.caf",
                    "channels": "news, sale", "for-ios": "on", "when": "repeat", "publishAt": "2030-01-01T10:00",
                    "publishAtMs": "\(first)", "repeatMinutes": "60", "ios-category": "SALE", "apns-priority": "5",
                    "headers": "campaign: autumn\nlevel: 2", "ios-thread-id": "007",
                ])
            #expect(sent.status == .seeOther, "\(sent.body)")
            let location = try #require(sent.headers[.location])
            #expect(location.hasPrefix("/console/messages/message"))
            let page = try await ConsoleTests.send(h.client, .get, location, cookie: cookie)
            #expect(page.body.contains("channels news, sale"), "\(page.body)")
            #expect(page.body.contains("every 3,600 s"))

            let id = String(location.dropFirst("/console/messages/".count)).removingPercentEncoding ?? ""
            let status = try await h.client.call(.get, "/shop/k-server/messaging/\(id)")
            #expect(status.body["status"] == .string("scheduled"))
            let listing = try await h.client.call(.get, "/shop/k-server/messaging/messages")
            #expect(listing.status == .ok)
            let stored = try #require(try await h.messages.message(app: "shop", id: id))
            #expect(stored.audience == [try ChannelName(validating: "news"), try ChannelName(validating: "sale")])
            #expect(stored.policy == .push && stored.broadcast == .ios && stored.publisherId == "herald-console")
            #expect(stored.schedule.publishAt?.milliseconds == first && stored.schedule.repeatEverySeconds == 3600)
            let aps = try #require(stored.contents?.apns)
            let text = String(decoding: aps.payload, as: UTF8.self)
            for part in [
                #""title":"Today""#, #""subtitle":"Only""#, #""badge":3"#, #""sound":"chime.caf""#, #""category":"SALE""#,
                #""campaign":"autumn""#, #""thread-id":"007""#,
            ] {
                #expect(text.contains(part), "\(text)")
            }
        }
    }

    /// The page's hidden key makes a second post of it (a double click, a resubmitted reload) lead to the
    /// message the first made; the same page posted again with other values is refused, naming that message.
    @Test func aPagePostedTwiceSendsOnce() async throws {
        try await TestHerald.with(file: false) { h in
            try await Self.register(h, "p1", os: "IOS", channels: ["news"])
            let cookie = try await ConsoleTests.login(h.client)
            let page = try await ConsoleTests.send(h.client, .get, "/console/send", cookie: cookie)
            let key = try #require(page.body.firstMatch(of: /name="submission" value="([0-9a-f-]{36})"/)?.1)
            let fields = [
                "intent": "send", "message": "Once", "channels": "news", "for-ios": "on", "when": "now", "submission": String(key),
            ]
            let first = try await Self.post(h, cookie, fields)
            let second = try await Self.post(h, cookie, fields)
            #expect(first.status == .seeOther && second.status == .seeOther, "\(second.body)")
            #expect(first.headers[.location] == second.headers[.location], "the same message")
            let listing = try await h.messages.messages(app: "shop", filter: MessageFilter(), after: nil, limit: 10)
            #expect(listing.messages.count == 1)
            let changed = try await Self.post(h, cookie, fields.merging(["message": "Twice?"]) { $1 })
            #expect(changed.status.code == 422)
            #expect(changed.body.contains("This page was sent already"), "\(changed.body)")
            #expect(try await h.messages.messages(app: "shop", filter: MessageFilter(), after: nil, limit: 10).messages.count == 1)
            // A new page has a new key.
            let again = try await ConsoleTests.send(h.client, .get, "/console/send", cookie: cookie)
            #expect(again.body.firstMatch(of: /name="submission" value="([0-9a-f-]{36})"/)?.1 != key)
        }
    }

    @Test func errorsAreTheAPIsMessageOnTheSameForm() async throws {
        try await TestHerald.with(file: false) { h in
            let cookie = try await ConsoleTests.login(h.client)
            let cases: [([String: String], String)] = [
                (["message": " "], "&#39;message&#39; is required"),
                (["message": "x", "badge": "-1"], "ios-badge"),
                (["message": "x", "channels": "bad/name"], "Channel name is invalid"),
                (["message": "x", "headers": "no colon here"], "name: value"),
                (["message": "x", "when": "at"], "publishAt"),
                (["message": "x", "when": "at", "publishAtMs": "1000"], "future"),
                (["message": "x", "when": "repeat", "publishAtMs": "\(TestHerald.t0.milliseconds + 60_000)"], "repeatEvery"),
                (["message": "x", "appVersionBelow": "two"], "segment.appVersionBelow"),
                (["message": "x", "channels": "a, b", "publishPolicy": "BOTH"], "pushed only"),
                (["message": "x", "audience": "devices", "devices": ""], "pushSinglecast"),
                // Far too large to be minutes × 60: refused, never an overflow.
                (
                    [
                        "message": "x", "when": "repeat", "publishAtMs": "\(TestHerald.t0.milliseconds + 60_000)",
                        "repeatMinutes": "999999999999999999",
                    ], "repeatEvery"
                ),
            ]
            for (fields, expected) in cases {
                let answer = try await Self.post(h, cookie, fields.merging(["intent": "send"]) { $1 })
                #expect(answer.status == .badRequest, "\(fields)")
                #expect(answer.body.contains(#"id="send-error""#) && answer.body.contains(expected), "\(fields): \(answer.body)")
                #expect(answer.body.contains(#"<textarea id="f-message""#), "the form again")
            }
            let listing = try await h.client.call(.get, "/shop/k-server/messaging/messages")
            #expect(listing.body["messages"]?[0] == nil, "nothing half-sent: \(listing.body)")
        }
    }

    /// Over the budget the count is an estimate, scaled from the pages counted by the share of the
    /// channel's key span they covered, and labelled as one.
    @Test func aCountOverItsBudgetIsAnEstimate() async throws {
        try await TestHerald.with(file: false) { h in
            for index in 0..<40 {
                try await Self.register(h, "d\(index)", os: index % 2 == 0 ? "IOS" : "ANDROID", channels: ["big"])
            }
            let filter = RecipientFilter(channel: try ChannelName(validating: "big"), devices: nil, systems: DeviceOS.allCases)
            let exact = try await h.store.recipientCount(app: "shop", filter: filter, now: h.clock.now)
            #expect(exact.exact && exact.total == 40 && exact.bySystem[.ios] == 20)
            let estimate = try await h.store.recipientCount(app: "shop", filter: filter, now: h.clock.now, budget: .zero, pageSize: 10)
            // Keys 1 to 40, a page of 10 counted: a quarter of the span, scaled by four.
            #expect(!estimate.exact)
            #expect(estimate.total == 40 && estimate.bySystem[.ios] == 20 && estimate.bySystem[.android] == 20, "\(estimate)")
            let none = try await h.store.recipientCount(
                app: "shop",
                filter: RecipientFilter(channel: try ChannelName(validating: "missing"), devices: nil, systems: DeviceOS.allCases),
                now: h.clock.now)
            #expect(none.exact && none.total == 0)
        }
    }
}
