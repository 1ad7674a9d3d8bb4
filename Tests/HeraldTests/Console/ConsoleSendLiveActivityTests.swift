import APNsMock
import Foundation
import HTTPTypes
import Herald
import HeraldCore
import HeraldStore
import HeraldTestSupport
import Hummingbird
import HummingbirdTesting
import Testing

/// The Send page's Live Activity composer (issue 51): its form becomes a body of the Live Activity publish
/// route and goes through that route's code, over TLS to the mock APNs: a start to the push-to-start
/// tokens, an update to one activity, an end, and an update to a bound channel as one broadcast; a
/// refusal comes back beside its field with Herald's code and message, and nothing is stored.
@Suite struct ConsoleSendLiveActivityTests {
    static let send = "/console/send/live-activity"

    static func compose(_ h: PublishHarness.Harness, _ cookie: String, _ fields: [String: String]) async throws -> ConsoleTests.Answer {
        try await ConsoleBroadcastChannelsTests.post(h.client, cookie, Self.send, fields)
    }

    /// The message id of a composer's redirect to its page.
    static func sent(_ answer: ConsoleTests.Answer) throws -> String {
        #expect(answer.status == .seeOther, "\(answer.status): \(answer.body)")
        let location = try #require(answer.headers[.location])
        #expect(location.hasPrefix("/console/messages/message:"))
        return String(location.dropFirst("/console/messages/".count))
    }

    static func aps(_ notification: APNsMockNotification) throws -> JSONValue? {
        try JSONValue.parse(Array(notification.payload.utf8))["aps"]
    }

    @Test func theComposerPublishesAStartAnUpdateAndAnEndThroughThePublishRoute() async throws {
        try await PublishHarness.with { h in
            try await h.registerDevices(0..<3, channels: ["match"])
            for index in 0..<2 {
                _ = try await LiveActivityPublishTests.put(
                    h, "/dev-\(index)/activity-start-tokens/MatchAttributes",
                    #"{"token": "\#(LiveActivityPublishTests.startToken(index))"}"#)
            }
            let cookie = try await ConsoleTests.login(h.client)
            let page = try await ConsoleTests.send(h.client, .get, "/console/send?kind=live-activity&channel=match", cookie: cookie)
            #expect(page.status == .ok && page.body.components(separatedBy: "<h1>").count == 2)
            #expect(
                page.body.contains(#"aria-current="page">Live Activity<"#) && page.body.contains(#"action="/console/send/live-activity""#))
            #expect(page.body.contains(#"id="f-channel" name="channel" type="text" value="match""#), "the channel from the link")
            #expect(page.body.contains("counts against Apple's hourly budget"))
            let notifications = try await ConsoleTests.send(h.client, .get, "/console/send", cookie: cookie)
            #expect(notifications.body.contains(#"<a href="/console/send?kind=live-activity">Live Activity</a>"#))

            // A start, priority 10, with a stale date: each push-to-start token of the type, as Apple's keys.
            let stale = TestHerald.t0.milliseconds + 3_600_000
            let start = try Self.sent(
                try await Self.compose(
                    h, cookie,
                    [
                        "event": "start", "attributesType": "MatchAttributes", "contentState": "{\"home\": 0,\n \"away\": 0}",
                        "attributes": #"{"home": "Lyon", "away": "Nantes"}"#, "alertTitle": "Kick-off", "alertBody": "Lyon v Nantes",
                        "staleDate": "2027-01-15T12:00", "staleDateMs": "\(stale)", "priority": "10", "channel": "match",
                    ]))
            #expect(try await h.waitFor(start, status: "published").delivery("sent") == 2)
            let started = h.mock.notifications()
            #expect(Set(started.map(\.token)) == [LiveActivityPublishTests.startToken(0), LiveActivityPublishTests.startToken(1)])
            for notification in started {
                #expect(notification.headers["apns-push-type"] == "liveactivity" && notification.headers["apns-priority"] == "10")
                let aps = try Self.aps(notification)
                #expect(aps?["event"] == .string("start") && aps?["attributes-type"] == .string("MatchAttributes"))
                #expect(aps?["content-state"] == .object(["home": .integer(0), "away": .integer(0)]))
                #expect(aps?["attributes"]?["home"] == .string("Lyon"))
                #expect(aps?["alert"] == .object(["title": .string("Kick-off"), "body": .string("Lyon v Nantes")]))
                #expect(aps?["stale-date"] == .integer(stale / 1000))
            }
            let stored = try #require(try await h.messages.message(app: "shop", id: start))
            #expect(stored.liveActivity?.kind == .start && stored.channel.rawValue == "match")

            // An update to one activity (its token), priority 5 by default.
            _ = try await LiveActivityPublishTests.put(
                h, "/dev-0/live-activities/A-1",
                #"{"attributesType": "MatchAttributes", "token": "\#(LiveActivityPublishTests.activityToken(0))"}"#)
            _ = try await LiveActivityPublishTests.put(
                h, "/dev-1/live-activities/A-2",
                #"{"attributesType": "MatchAttributes", "token": "\#(LiveActivityPublishTests.activityToken(1))"}"#)
            let update = try Self.sent(
                try await Self.compose(
                    h, cookie,
                    [
                        "event": "update", "attributesType": "MatchAttributes", "activityId": "A-1",
                        "contentState": #"{"home": 1, "away": 0}"#,
                        "channel": "match",
                    ]))
            #expect(try await h.waitFor(update, status: "published").delivery("sent") == 1)
            let updated = try #require(h.mock.notifications().last)
            #expect(updated.token == LiveActivityPublishTests.activityToken(0) && updated.headers["apns-priority"] == "5")
            #expect(try Self.aps(updated)?["content-state"]?["home"] == .integer(1))

            // An end to devices by id, with a dismissal date: every activity of the type on those devices.
            let dismissal = TestHerald.t0.milliseconds + 600_000
            let end = try Self.sent(
                try await Self.compose(
                    h, cookie,
                    [
                        "event": "end", "attributesType": "MatchAttributes", "contentState": #"{"home": 2, "away": 1}"#,
                        "audience": "devices",
                        "devices": "dev-1", "dismissalDateMs": "\(dismissal)", "dismissalDate": "2027-01-15T12:00",
                    ]))
            #expect(try await h.waitFor(end, status: "published").delivery("sent") == 1)
            let ended = try #require(h.mock.notifications().last)
            #expect(ended.token == LiveActivityPublishTests.activityToken(1))
            #expect(
                try Self.aps(ended)?["event"] == .string("end") && (try Self.aps(ended))?["dismissal-date"] == .integer(dismissal / 1000))
            #expect(h.mock.liveActivityChecks().allSatisfy { $0.problems.isEmpty }, "a device would take them all")

            // Bound to a broadcast channel, the channel's update is one broadcast request: the route's rule.
            let bound = try await h.client.call(.post, "/shop/k-admin/live-activities/channels", json: #"{"channel": "match"}"#)
            #expect(bound.status == .ok)
            let before = h.mock.notifications().count
            let broadcast = try Self.sent(
                try await Self.compose(
                    h, cookie,
                    ["event": "update", "attributesType": "MatchAttributes", "contentState": #"{"home": 3}"#, "channel": "match"]))
            #expect(try await h.waitFor(broadcast, status: "published").delivery("sent") == 1)
            #expect(h.mock.notifications().count == before && h.mock.broadcasts().count == 1)
            let listed = try await ConsoleTests.send(h.client, .get, "/console/live-activities", cookie: cookie)
            #expect(
                listed.body.contains(#"<td data-label="Sent as">broadcast</td>"#)
                    && listed.body.contains(#"<a href="/console/messages/\#(broadcast)">"#))
        }
    }

    @Test func refusalsComeBackBesideTheirFieldWithHeraldsCode() async throws {
        try await PublishHarness.with { h in
            let cookie = try await ConsoleTests.login(h.client)
            let base = ["attributesType": "MatchAttributes", "contentState": #"{"s": 1}"#, "channel": "match"]
            let cases: [([String: String], field: String?, code: Int, text: String)] = [
                (["contentState": "{\"s\": 1,\n \"t\": }"], "contentState", 8008, "not JSON at line 2, column"),
                (["contentState": #"{"s": null}"#], "contentState", 8008, "null is not allowed"),
                (["contentState": "[1]"], "contentState", 8008, "expected an object"),
                (["contentState": ""], "contentState", 8007, "Missing parameter &#39;contentState&#39;"),
                (["attributesType": ""], "attributesType", 8007, "attributesType"),
                (["event": "start", "attributes": #"{"a": 1}"#], "alertTitle", 8007, "Missing parameter &#39;alert&#39;"),
                (["event": "start", "alertTitle": "Hi"], "attributes", 8007, "Missing parameter &#39;attributes&#39;"),
                (["event": "start", "activityId": "A-1"], "activityId", 8008, "a start has no activity yet"),
                (["event": "update", "dismissalDateMs": "1800000600000"], "dismissalDate", 8008, "only an end has one"),
                (["staleDate": "tomorrow"], "staleDate", 8008, "expected a date and time"),
                (["priority": "7"], "priority", 8008, "expected 5 or 10"),
                (["relevanceScore": "high"], "relevanceScore", 8008, "expected a number"),
                (["channel": "bad/name"], "channel", 5044, "Channel name is invalid"),
                (["audience": "devices", "devices": ""], "devices", 8008, "pushSinglecast"),
                (["appVersionBelow": "two"], "appVersionBelow", 8008, "segment.appVersionBelow"),
                (["contentState": "{\"s\": \"\(String(repeating: "x", count: 5000))\"}"], nil, 8000, "payload"),
            ]
            for (fields, field, code, text) in cases {
                let answer = try await Self.compose(h, cookie, base.merging(fields) { $1 })
                #expect(answer.status == .badRequest, "\(fields): \(answer.status)")
                let body = answer.body
                #expect(body.contains(#"id="send-error""#), "\(fields)")
                #expect(body.contains(text), "\(fields): \(body)")
                if let field {
                    // Beside the field, which is marked invalid and points at it.
                    #expect(
                        body.contains(#"<p class="field-error" id="\#(field)-error"><strong class="code">\#(code)</strong>"#),
                        "\(fields): \(body)")
                    #expect(body.contains(#"aria-invalid="true" aria-errormessage="\#(field)-error""#), "\(fields)")
                } else {
                    #expect(
                        body.contains(#"<p class="error" role="alert" id="send-error"><strong class="code">\#(code)</strong>"#), "\(fields)"
                    )
                }
                #expect(body.contains(#"action="/console/send/live-activity""#), "the form again")
            }
            // The form keeps what was typed, the JSON as written.
            let kept = try await Self.compose(h, cookie, base.merging(["contentState": "{\"s\": 1,\n \"t\": }"]) { $1 })
            #expect(kept.body.contains("{&quot;s&quot;: 1,\n &quot;t&quot;: }</textarea>"))
            let listing = try await h.client.call(.get, "/shop/k-server/messaging/messages")
            #expect(listing.body["messages"]?[0] == nil, "nothing stored: \(listing.body)")
        }
        // The app's configuration: no apns block (5083), on top of the form.
        try await PublishHarness.with(apns: false) { h in
            let cookie = try await ConsoleTests.login(h.client)
            let answer = try await Self.compose(
                h, cookie, ["attributesType": "MatchAttributes", "contentState": #"{"s": 1}"#, "channel": "match"])
            #expect(
                answer.status == .badRequest && answer.body.contains(#"id="send-error"><strong class="code">5083</strong>"#),
                "\(answer.body)")
        }
    }

    @Test func theFormNeedsItsSessionsToken() async throws {
        try await PublishHarness.with { h in
            let cookie = try await ConsoleTests.login(h.client)
            let forged = try await ConsoleBroadcastChannelsTests.post(
                h.client, cookie, Self.send, ["attributesType": "T", "contentState": #"{"s": 1}"#], csrf: "nope")
            #expect(forged.status == .forbidden)
            let listing = try await h.client.call(.get, "/shop/k-server/messaging/messages")
            #expect(listing.body["messages"]?[0] == nil)
        }
    }
}
