import APNsMock
import Foundation
import HTTPTypes
import Herald
import HeraldAPNs
import HeraldCore
import HeraldStore
import HeraldTestSupport
import Hummingbird
import HummingbirdTesting
import Testing

/// The console's Live Activities page (issue 51): the app's APNs broadcast channels made, bound, unbound
/// and deleted from the page through the admin routes' code, reaching the mock APNs's channel management
/// host; refusals (Apple's, Herald's) on the page with their code, never a 500; one app's admin kept to its
/// channels; forms without the session's CSRF token refused; the latest Live Activity publishes listed.
@Suite struct ConsoleBroadcastChannelsTests {
    static let page = "/console/live-activities"

    /// Posts `fields` with the session's CSRF token (unless `csrf` says another) to `path`.
    static func post(
        _ client: some TestClientProtocol, _ cookie: String, _ path: String, _ fields: [String: String], csrf: String? = nil
    ) async throws -> ConsoleTests.Answer {
        let token: String
        if let csrf { token = csrf } else { token = try await ConsoleTests.csrf(client, cookie) }
        let form = (fields.merging(["csrf": token]) { $1 }).map {
            "\($0.key)=\($0.value.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")"
        }.joined(separator: "&")
        return try await ConsoleTests.send(client, .post, path, cookie: cookie, form: form)
    }

    static func channels(_ h: PublishHarness.Harness, app: String = "shop", key: String = "k-admin") async throws -> [JSONValue] {
        guard case .array(let list)? = try await h.client.call(.get, "/\(app)/\(key)/live-activities/channels").body["channels"] else {
            throw HarnessError("no channel list")
        }
        return list
    }

    @Test func channelsAreMadeBoundUnboundAndDeletedAtAppleFromThePage() async throws {
        try await PublishHarness.with { h in
            let cookie = try await ConsoleTests.login(h.client)
            let empty = try await ConsoleTests.send(h.client, .get, Self.page, cookie: cookie)
            #expect(empty.status == .ok)
            #expect(empty.body.components(separatedBy: "<h1>").count == 2 && empty.body.contains("<h1>Live Activities</h1>"))
            #expect(empty.body.contains(#"aria-current="page">Live Activities<"#), "in the navigation, current")
            #expect(empty.body.contains("No broadcast channels yet") && !empty.body.contains(#"id="la-setup""#))
            #expect(empty.body.contains("No Live Activity publishes yet"))

            let created = try await Self.post(
                h.client, cookie, "/console/live-activities/create", ["storagePolicy": "1", "channel": "match"])
            #expect(created.status == .seeOther && created.headers[.location] == "\(Self.page)?done=created", "\(created.body)")
            let atApple = h.mock.channels()
            #expect(atApple.count == 1 && atApple.first?.storagePolicy == 1, "the mock's management host made it")
            let id = try #require(atApple.first?.channelID)
            let listed = try await Self.channels(h)
            #expect(listed.count == 1 && listed.first?["channelId"] == .string(id) && listed.first?["channel"] == .string("match"))

            let shown = try await ConsoleTests.send(h.client, .get, "\(Self.page)?done=created", cookie: cookie)
            #expect(shown.body.contains("Channel created at Apple."))
            let short = id.count <= 14 ? id : "\(id.prefix(8))…\(id.suffix(4))"
            #expect(
                shown.body.contains(#"<code title="\#(HTMLEscaping.escape(id))">\#(HTMLEscaping.escape(short))</code>"#), "\(shown.body)")
            #expect(shown.body.contains("latest kept 8 h"))
            #expect(shown.body.contains(#"<a href="/console/devices?channel=match">match</a>"#))
            #expect(shown.body.contains("data-confirm=\"Delete broadcast channel"), "deleting asks first")
            #expect(shown.body.contains(">Unbind</button>"))

            // Bound to another Herald channel, then unbound: the store holds what the page did.
            let bound = try await Self.post(h.client, cookie, "/console/live-activities/bind", ["channelId": id, "channel": "cup-final"])
            #expect(bound.status == .seeOther && bound.headers[.location] == "\(Self.page)?done=bound")
            #expect(try await Self.channels(h).first?["channel"] == .string("cup-final"))
            let unbound = try await Self.post(h.client, cookie, "/console/live-activities/bind", ["channelId": id, "intent": "unbind"])
            #expect(unbound.status == .seeOther && unbound.headers[.location] == "\(Self.page)?done=unbound")
            #expect(try await Self.channels(h).first?["channel"] == .null)
            let none = try await ConsoleTests.send(h.client, .get, Self.page, cookie: cookie)
            #expect(none.body.contains(#"<span class="muted">none</span>"#) && !none.body.contains(">Unbind</button>"))

            let deleted = try await Self.post(h.client, cookie, "/console/live-activities/delete", ["channelId": id])
            #expect(deleted.status == .seeOther && deleted.headers[.location] == "\(Self.page)?done=deleted")
            #expect(h.mock.channels().isEmpty, "deleted at Apple")
            #expect(try await Self.channels(h).isEmpty, "and in Herald")
        }
    }

    @Test func refusalsAreShownOnThePageWithTheirCodeNeverA500() async throws {
        try await PublishHarness.with { h in
            let cookie = try await ConsoleTests.login(h.client)
            // Herald's checks, as the route makes them.
            let policy = try await Self.post(h.client, cookie, "/console/live-activities/create", ["storagePolicy": "7"])
            #expect(policy.status == .badRequest && policy.body.contains(#"id="la-error""#), "\(policy.body)")
            #expect(policy.body.contains(#"<strong class="code">8008</strong> Invalid parameter &#39;storagePolicy&#39;"#))
            let name = try await Self.post(h.client, cookie, "/console/live-activities/create", ["channel": "bad/name"])
            #expect(name.status == .badRequest && name.body.contains(#"<strong class="code">5044</strong>"#))
            #expect(name.body.contains(#"value="bad/name""#), "the form keeps what was typed")
            let unknown = try await Self.post(h.client, cookie, "/console/live-activities/delete", ["channelId": "bm90LWEtY2hhbm5lbA=="])
            #expect(unknown.status == .notFound && unknown.body.contains(#"<strong class="code">5085</strong>"#))
            let unknownBind = try await Self.post(
                h.client, cookie, "/console/live-activities/bind", ["channelId": "bm90LWEtY2hhbm5lbA==", "channel": "x"])
            #expect(unknownBind.status == .notFound && unknownBind.body.contains("5085"))
            #expect(h.mock.channels().isEmpty, "nothing reached Apple")

            // Apple's refusal, with Apple's reason: the capability is off for the App ID.
            h.mock.setBroadcastCapability(bundle: PublishHarness.topic, enabled: false)
            let refused = try await Self.post(h.client, cookie, "/console/live-activities/create", ["storagePolicy": "0"])
            #expect(refused.status == .badGateway, "\(refused.status)")
            #expect(
                refused.body.contains(#"<strong class="code">5084</strong> APNs channel management:"#)
                    && refused.body.contains("FeatureNotEnabled"))
            #expect(
                refused.body.contains("<h1>Live Activities</h1>") && refused.body.contains("Create channel"), "the page, not an error page")

            // A channel Apple forgot (ChannelNotRegistered there) is deleted here all the same, as the route does.
            h.mock.setBroadcastCapability(bundle: PublishHarness.topic, enabled: true)
            _ = try await Self.post(h.client, cookie, "/console/live-activities/create", [:])
            let id = try #require(h.mock.channels().first?.channelID)
            h.mock.setBroadcastCapability(bundle: PublishHarness.topic, enabled: false)
            h.mock.setBroadcastCapability(bundle: PublishHarness.topic, enabled: true)
            let gone = try await Self.post(h.client, cookie, "/console/live-activities/delete", ["channelId": id])
            #expect(gone.status == .seeOther, "\(gone.body)")
            #expect(try await Self.channels(h).isEmpty)
        }
        // An app without an apns block: the page says why before anyone presses Create, and Create says so too.
        try await PublishHarness.with(apns: false) { h in
            let cookie = try await ConsoleTests.login(h.client)
            let page = try await ConsoleTests.send(h.client, .get, Self.page, cookie: cookie)
            #expect(
                page.status == .ok && page.body.contains(#"id="la-setup""#) && page.body.contains(#"<strong class="code">5083</strong>"#))
            let create = try await Self.post(h.client, cookie, "/console/live-activities/create", [:])
            #expect(create.status == .badRequest && create.body.contains(#"id="la-error""#) && create.body.contains("5083"))
        }
    }

    /// A certificate app (5082) and a custom APNs server without a management host (5086), from configuration.
    @Test func appsThatCannotManageChannelsAreToldWhy() async throws {
        let cases: [(APNsAppConfiguration.Authentication, String?, Int)] = [
            (
                .certificate(
                    certificateFile: FixtureFiles.path("fixtures/tls/client.crt"),
                    privateKeyFile: FixtureFiles.path("fixtures/tls/client.key"), passphrase: nil), "https://127.0.0.1:9", 5082
            ),
            (.token(teamID: FixtureFiles.teamID, keyID: FixtureFiles.keyID, privateKeyFile: FixtureFiles.keyFile()), nil, 5086),
        ]
        for (authentication, manage, code) in cases {
            var apps = TestHerald.apps
            apps[0].apns = APNsAppConfiguration(
                environment: .custom(url: "https://127.0.0.1:9", caFile: FixtureFiles.caFile, manageURL: manage),
                topic: PublishHarness.topic, authentication: authentication)
            try await TestHerald.with(apps: apps) { h in
                let cookie = try await ConsoleTests.login(h.client)
                let page = try await ConsoleTests.send(h.client, .get, Self.page, cookie: cookie)
                #expect(page.body.contains(#"<strong class="code">\#(code)</strong>"#), "\(code): \(page.body)")
                let create = try await Self.post(h.client, cookie, "/console/live-activities/create", [:])
                #expect(create.status == .badRequest && create.body.contains(#"id="la-error""#) && create.body.contains("\(code)"))
            }
        }
    }

    @Test func anotherAppsAdminSeesAndTouchesNoneOfItAndFormsNeedTheToken() async throws {
        try await PublishHarness.with { h in
            let shop = try await ConsoleTests.login(h.client)
            _ = try await Self.post(h.client, shop, "/console/live-activities/create", ["channel": "match"])
            let id = try #require(h.mock.channels().first?.channelID)

            let blog = try await ConsoleTests.login(h.client, app: "blog", key: "b-admin")
            let page = try await ConsoleTests.send(h.client, .get, Self.page, cookie: blog)
            #expect(page.status == .ok && !page.body.contains(HTMLEscaping.escape(String(id.prefix(8)))) && !page.body.contains("match"))
            #expect(page.body.contains("No broadcast channels yet"))
            // Blog has no APNs: it cannot reach shop's channel by its id either.
            for (path, fields) in [
                ("/console/live-activities/delete", ["channelId": id]),
                ("/console/live-activities/bind", ["channelId": id, "channel": "x"]),
            ] {
                let answer = try await Self.post(h.client, blog, path, fields)
                #expect(answer.status == .notFound && answer.body.contains("5085"), "\(path): \(answer.status)")
            }
            let kept = try await Self.channels(h)
            #expect(h.mock.channels().map(\.channelID) == [id] && kept.first?["channel"] == .string("match"))

            // Without the session's CSRF token (or with another session's), nothing happens.
            for csrf in ["", try await ConsoleTests.csrf(h.client, blog)] {
                let forged = try await Self.post(h.client, shop, "/console/live-activities/delete", ["channelId": id], csrf: csrf)
                #expect(forged.status == .forbidden && forged.body.contains("security token"))
                let made = try await Self.post(h.client, shop, "/console/live-activities/create", [:], csrf: csrf)
                #expect(made.status == .forbidden)
            }
            #expect(h.mock.channels().count == 1)
            // No session, no page.
            let anonymous = try await ConsoleTests.send(h.client, .get, Self.page)
            #expect(anonymous.status == .seeOther && anonymous.headers[.location] == "/console/login")
        }
    }

    @Test func theLatestLiveActivityPublishesAreListedWithLinksToTheirPages() async throws {
        try await PublishHarness.with { h in
            try await h.registerDevices(0..<2, channels: ["match"])
            let cookie = try await ConsoleTests.login(h.client)
            _ = try await Self.post(h.client, cookie, "/console/live-activities/create", ["channel": "match"])
            let ordinary = try await h.client.call(.post, "/shop/k-server/messaging/news", json: #"{"message": "not one"}"#)
            #expect(ordinary.status == .ok)
            let update = try await LiveActivityPublishTests.liveActivity(
                h, "match", #"{"event": "update", "attributesType": "Match<Attributes>", "contentState": {"s": 1}}"#)
            _ = try await h.waitFor(update, status: "published")
            // The harness's clock stands still: a second later, so that "newest first" has a newest.
            h.clock.advance(milliseconds: 1000)
            let single = try await LiveActivityPublishTests.liveActivity(
                h, "other",
                #"{"event": "end", "attributesType": "Delivery", "activityId": "A-7", "contentState": {"s": 2}, "pushSinglecast": ["dev-0"]}"#
            )
            _ = try await h.waitFor(single, status: "published")

            let page = try await ConsoleTests.send(h.client, .get, Self.page, cookie: cookie)
            let body = page.body
            #expect(body.contains(#"<a href="/console/messages/\#(update)">"#), "\(body)")
            #expect(body.contains(#"<a href="/console/messages/\#(single)">"#))
            #expect(!body.contains(try #require(ordinary.body["messageId"]?.scalarText).dropFirst("message:".count)), "an ordinary message")
            #expect(
                body.contains(
                    #"<td data-label="Event">update</td><td data-label="Attributes type">Match&lt;Attributes&gt;</td>"#
                        + "\n" + #"<td data-label="Audience">channel match</td><td data-label="Sent as">broadcast</td>"#), "\(body)")
            #expect(
                body.contains(
                    #"<td data-label="Event">end</td><td data-label="Attributes type">Delivery</td>"#
                        + "\n"
                        + #"<td data-label="Audience">device dev-0</td><td data-label="Sent as">per token, activity <code>A-7</code></td>"#)
            )
            #expect(body.contains(#"<span class="state state-published">published</span>"#))
            // Newest first.
            let newest = try #require(body.range(of: ">end</td>"))
            let older = try #require(body.range(of: ">update</td>"))
            #expect(newest.lowerBound < older.lowerBound)
            // The message's page says what it was.
            let message = try await ConsoleTests.send(h.client, .get, "/console/messages/\(update)", cookie: cookie)
            #expect(message.body.contains("<dt>Live Activity</dt><dd>update of Match&lt;Attributes&gt;, one broadcast to <code"))
        }
    }
}

/// What the page writes for a value (HTML.escape is the server's; the tests say it again).
enum HTMLEscaping {
    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
            .replacingOccurrences(of: "'", with: "&#39;")
    }
}
