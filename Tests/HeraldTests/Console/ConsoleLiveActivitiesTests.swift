import Foundation
import HTTPTypes
import Herald
import HeraldCore
import HeraldStore
import HeraldTestSupport
import Hummingbird
import HummingbirdTesting
import Testing

/// A device page's Live Activities section (issue 51), over a live socket on a real SQLite file: what it
/// lists is what the store holds for that device of that app, the app's text comes out escaped, tokens
/// come out cut short, and another app's admin sees none of it.
@Suite struct ConsoleLiveActivitiesTests {
    static let startToken = "5a" + String(repeating: "0", count: 61) + "1"
    static let activityToken = "ac" + String(repeating: "1", count: 61) + "2"
    static let otherToken = "ad" + String(repeating: "2", count: 61) + "3"

    /// TestHerald's apps, blog with a client key too, so it can have a device of its own.
    static var apps: [AppConfiguration] {
        var apps = TestHerald.apps
        apps[1].keys.append(APIKey(key: "b-client", role: .client))
        return apps
    }

    /// A time as the page writes it (`datetime` of its `<time>`).
    static func utc(_ timestamp: Timestamp) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.string(from: Date(timeIntervalSince1970: Double(timestamp.milliseconds) / 1000))
    }

    static func segment(_ text: String) -> String { text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? text }

    static func register(_ h: TestHerald.Harness, _ deviceId: String, os: String = "IOS", app: String = "shop", key: String = "k-client")
        async throws
    {
        let token = os == "IOS" ? "a1b2c3d4e5f60718a1b2" : "fcm-token-\(deviceId)"
        let answer = try await h.client.call(
            .post, "/\(app)/\(key)/messaging/registrations",
            json: #"{"deviceToken": "\#(token)", "deviceId": "\#(deviceId)", "channels": ["news"], "os": "\#(os)"}"#)
        #expect(answer.status == .ok, "registered \(deviceId): \(answer.body)")
    }

    static func put(_ h: TestHerald.Harness, _ path: String, _ body: String, app: String = "shop", key: String = "k-client") async throws {
        let answer = try await h.client.call(.put, "/\(app)/\(key)/devices/\(path)", json: body)
        #expect(answer.status == .ok, "PUT \(path): \(answer.status) \(answer.body)")
    }

    /// The device's page as `app`'s admin sees it.
    static func page(_ h: TestHerald.Harness, _ deviceId: String, app: String = "shop", key: String = "k-admin") async throws
        -> ConsoleTests.Answer
    {
        let cookie = try await ConsoleTests.login(h.client, app: app, key: key)
        return try await ConsoleTests.send(h.client, .get, "/console/devices/\(segment(deviceId))", cookie: cookie)
    }

    @Test func theSectionListsTheDevicesStartTokensAndActivities() async throws {
        try await TestHerald.with(setup: .live) { h in
            try await Self.register(h, "phone")
            try await Self.register(h, "other-phone")
            try await Self.put(h, "phone/activity-start-tokens/MatchAttributes", #"{"token": "\#(Self.startToken)"}"#)
            try await Self.put(
                h, "phone/live-activities/match-1", #"{"attributesType": "MatchAttributes", "token": "\#(Self.activityToken)"}"#)
            h.clock.advance(milliseconds: 60_000)
            try await Self.put(
                h, "phone/live-activities/delivery-7", #"{"attributesType": "DeliveryAttributes", "token": "\#(Self.otherToken)"}"#)
            h.clock.advance(milliseconds: 60_000)
            #expect(
                try await h.store.endActivity(
                    app: "shop", activityId: "delivery-7", attributesType: "DeliveryAttributes", now: h.clock.now, dismissal: nil))
            // Another device's activity is on its own page only.
            try await Self.put(
                h, "other-phone/live-activities/elsewhere-9", #"{"attributesType": "OtherAttributes", "token": "\#(Self.otherToken)"}"#)

            let held = try #require(try await h.store.liveActivities(app: "shop", deviceId: "phone", now: h.clock.now))
            #expect(held.startTokens.count == 1 && held.activities.count == 2)
            let page = try await Self.page(h, "phone")
            #expect(page.status == .ok)
            let body = page.body
            #expect(body.contains("<h2>Live Activities</h2>"))
            #expect(body.components(separatedBy: "<h1>").count == 2, "one h1")
            // Every token the store holds, cut to its first 8 characters; never whole.
            for token in [Self.startToken, Self.activityToken, Self.otherToken] {
                #expect(!body.contains(token), "a whole token on the page")
                #expect(!body.contains(String(token.prefix(9))), "more than 8 characters of a token")
            }
            let start = try #require(held.startTokens.first)
            #expect(body.contains("<tr><td>MatchAttributes</td><td><code>\(start.token.prefix(8))…</code></td>"), "\(body)")
            #expect(body.contains(#"<time datetime="\#(Self.utc(start.updatedAt))""#))
            for activity in held.activities {
                #expect(
                    body.contains("<tr><td><code>\(activity.activityId)</code></td><td>\(activity.attributesType)</td>"),
                    "\(activity.activityId)")
                #expect(body.contains("<code>\(activity.token.prefix(8))…</code>"))
                #expect(body.contains(#"<time datetime="\#(Self.utc(activity.startedAt))""#))
                #expect(body.contains(#"<time datetime="\#(Self.utc(activity.expiresAt))""#))
            }
            // The running one says so; the ended one shows when it ended, and shows until 4 hours later.
            #expect(body.contains("running</span>"))
            let ended = try #require(held.activities.first { $0.activityId == "delivery-7" })
            #expect(ended.endedAt == h.clock.now && ended.expiresAt.milliseconds == h.clock.now.milliseconds + 4 * 3_600_000)
            #expect(body.contains(#"<td><time datetime="\#(Self.utc(h.clock.now))""#), "the end time in its cell")
            // Newest start first, as the store gives them.
            let delivery = try #require(body.range(of: "delivery-7"))
            let match = try #require(body.range(of: "match-1"))
            #expect(delivery.lowerBound < match.lowerBound)
            #expect(!body.contains("elsewhere-9") && !body.contains("OtherAttributes"), "another device's activity")
            #expect(!body.contains("No push-to-start tokens") && !body.contains("No activities"))
        }
    }

    @Test func withoutTokensItSaysHowAnAppRegistersThemAndAnAndroidDeviceGetsANote() async throws {
        try await TestHerald.with(setup: .live) { h in
            try await Self.register(h, "quiet-phone")
            try await Self.register(h, "pixel", os: "ANDROID")
            let quiet = try await Self.page(h, "quiet-phone")
            #expect(quiet.status == .ok)
            #expect(quiet.body.contains("No push-to-start tokens."))
            #expect(quiet.body.contains("PUT /{appId}/{apiKey}/devices/{deviceId}/activity-start-tokens/{attributesType}"), "\(quiet.body)")
            #expect(quiet.body.contains("No activities."))
            #expect(quiet.body.contains("PUT /{appId}/{apiKey}/devices/{deviceId}/live-activities/{activityId}"))

            let pixel = try await Self.page(h, "pixel")
            #expect(pixel.status == .ok && pixel.body.contains("<h2>Live Activities</h2>"))
            #expect(pixel.body.contains("Live Activities are iOS only"), "\(pixel.body)")
            #expect(!pixel.body.contains("No push-to-start tokens") && !pixel.body.contains("Push-to-start tokens, one per"))
        }
    }

    @Test func hostileTypesAndActivityIdsComeOutEscaped() async throws {
        try await TestHerald.with(setup: .live) { h in
            try await Self.register(h, "phone")
            let type = #"<script>alert("type")"#
            let activity = "<script>alert(1)"
            let bodyType = #"</script><img src=x onerror=alert(2)>"#
            try await Self.put(h, "phone/activity-start-tokens/\(Self.segment(type))", #"{"token": "\#(Self.startToken)"}"#)
            try await Self.put(
                h, "phone/live-activities/\(Self.segment(activity))",
                #"{"attributesType": "\#(bodyType)", "token": "\#(Self.activityToken)"}"#)
            let held = try #require(try await h.store.liveActivities(app: "shop", deviceId: "phone", now: h.clock.now))
            #expect(held.startTokens.map(\.attributesType) == [type] && held.activities.map(\.activityId) == [activity])
            #expect(held.activities.map(\.attributesType) == [bodyType])

            let page = try await Self.page(h, "phone")
            #expect(page.status == .ok)
            #expect(!page.body.contains("<script>"), "an inline script from the app's text")
            #expect(!page.body.contains("</script><img") && !page.body.contains("<img"), "markup from the app's text")
            #expect(page.body.contains("<td>&lt;script&gt;alert(&quot;type&quot;)</td>"), "\(page.body)")
            #expect(page.body.contains("<td><code>&lt;script&gt;alert(1)</code></td>"))
            #expect(page.body.contains("<td>&lt;/script&gt;&lt;img src=x onerror=alert(2)&gt;</td>"))
        }
    }

    @Test func anotherAppsAdminSeesNoneOfIt() async throws {
        try await TestHerald.with(setup: .live, apps: Self.apps) { h in
            try await Self.register(h, "phone")
            try await Self.put(h, "phone/activity-start-tokens/ShopAttributes", #"{"token": "\#(Self.startToken)"}"#)
            try await Self.put(
                h, "phone/live-activities/shop-activity", #"{"attributesType": "ShopAttributes", "token": "\#(Self.activityToken)"}"#)
            try await Self.register(h, "only-shop")
            try await Self.put(
                h, "only-shop/live-activities/shop-only", #"{"attributesType": "ShopAttributes", "token": "\#(Self.otherToken)"}"#)
            // Blog has a device of the same id, with no tokens.
            try await Self.register(h, "phone", app: "blog", key: "b-client")

            let shop = try await Self.page(h, "phone")
            #expect(shop.body.contains("shop-activity") && shop.body.contains("ShopAttributes"), "shop's admin sees them")
            let blog = try await Self.page(h, "phone", app: "blog", key: "b-admin")
            #expect(blog.status == .ok)
            #expect(!blog.body.contains("ShopAttributes") && !blog.body.contains("shop-activity"), "\(blog.body)")
            #expect(!blog.body.contains(String(Self.startToken.prefix(8))) && !blog.body.contains(String(Self.activityToken.prefix(8))))
            #expect(blog.body.contains("No push-to-start tokens.") && blog.body.contains("No activities."))
            let other = try await Self.page(h, "only-shop", app: "blog", key: "b-admin")
            #expect(other.status == .notFound && !other.body.contains("shop-only"))
        }
    }
}
