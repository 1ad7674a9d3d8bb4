import APNsMock
import Foundation
import Herald
import HeraldAPNs
import HeraldCore
import HeraldTestSupport
import Hummingbird
import HummingbirdTesting
import Testing

/// Live Activities end to end: the app's token routes, a Live Activity publish, the fan-out to the
/// tokens through the mock APNs over TLS, what the mock (and a device) sees, and 410 hygiene.
@Suite struct LiveActivityPublishTests {
    static let devices = "/shop/k-client/devices"

    static func startToken(_ index: Int) -> String { "5a" + String(repeating: "0", count: 61) + String(index) }
    static func activityToken(_ index: Int) -> String { "ac" + String(repeating: "1", count: 61) + String(index) }

    static func put(_ h: PublishHarness.Harness, _ path: String, _ body: String) async throws -> JSONValue {
        let answer = try await h.client.call(.put, devices + path, json: body)
        #expect(answer.status == .ok, "PUT \(path) answered \(answer.status): \(answer.body)")
        return answer.body
    }

    static func liveActivity(_ h: PublishHarness.Harness, _ channel: String, _ body: String) async throws -> String {
        let answer = try await h.client.call(.post, PublishHarness.publish + "/\(channel)/live-activity", json: body)
        #expect(answer.status == .ok, "publish answered \(answer.status): \(answer.body)")
        guard case .string(let id)? = answer.body["messageId"] else { throw HarnessError("no messageId in \(answer.body)") }
        return id
    }

    @Test(arguments: PublishHarness.Database.available)
    func aStartGoesToThePushToStartTokensOfItsTypeAsApplesKeys(_ database: PublishHarness.Database) async throws {
        try await PublishHarness.with(database: database) { h in
            try await h.registerDevices(0..<3, channels: ["match"])
            try await MixedChannelTests.registerAndroid(h, 0..<1, channel: "match")
            _ = try await Self.put(h, "/dev-0/activity-start-tokens/MatchAttributes", #"{"token": "\#(Self.startToken(0))"}"#)
            _ = try await Self.put(h, "/dev-1/activity-start-tokens/MatchAttributes", #"{"token": "\#(Self.startToken(9))"}"#)
            // Rotated: the new token replaces the old.
            _ = try await Self.put(h, "/dev-1/activity-start-tokens/MatchAttributes", #"{"token": "\#(Self.startToken(1))"}"#)
            _ = try await Self.put(h, "/dev-2/activity-start-tokens/DeliveryAttributes", #"{"token": "\#(Self.startToken(2))"}"#)
            let android = try await h.client.call(
                .put, Self.devices + "/droid-0/activity-start-tokens/MatchAttributes", json: #"{"token": "aabb"}"#)
            #expect(android.status == .badRequest && android.body["code"] == .integer(5080))

            let id = try await Self.liveActivity(
                h, "match",
                #"""
                {"event": "start", "attributesType": "MatchAttributes", "attributes": {"home": "Lyon", "away": "Nantes"},
                 "contentState": {"home": 0, "away": 0}, "alert": {"title": "Kick-off", "body": "Lyon v Nantes"},
                 "staleDate": 1800003600000, "inputPushToken": true}
                """#)
            let status = try await h.waitFor(id, status: "published")
            #expect(status.delivery("sent") == 2)
            let sent = h.mock.notifications()
            #expect(Set(sent.map(\.token)) == [Self.startToken(0), Self.startToken(1)])
            for notification in sent {
                #expect(notification.headers["apns-push-type"] == "liveactivity")
                #expect(notification.headers["apns-topic"] == PublishHarness.topic + ".push-type.liveactivity")
                #expect(notification.headers["apns-priority"] == "5")
                let aps = try #require(try JSONValue.parse(Array(notification.payload.utf8))["aps"])
                #expect(aps["event"] == .string("start") && aps["attributes-type"] == .string("MatchAttributes"))
                #expect(aps["timestamp"] == .integer(TestHerald.t0.milliseconds / 1000))
                #expect(aps["stale-date"] == .integer(1_800_003_600) && aps["input-push-token"] == .integer(1))
            }
            // What a device would drop without a word, checked apart from APNs's 200.
            let checks = h.mock.liveActivityChecks()
            #expect(checks.count == 2)
            #expect(checks.allSatisfy { $0.problems.isEmpty }, "\(checks.map(\.problems))")
        }
    }

    @Test(arguments: PublishHarness.Database.available)
    func anUpdateGoesToEachActivityAndAGoneTokenIsRemovedAlone(_ database: PublishHarness.Database) async throws {
        try await PublishHarness.with(database: database) { h in
            try await h.registerDevices(0..<2, channels: ["match"])
            let first = try await Self.put(
                h, "/dev-0/live-activities/A-0", #"{"attributesType": "MatchAttributes", "token": "\#(Self.activityToken(0))"}"#)
            #expect(first["expiresAt"] == .integer(TestHerald.t0.milliseconds + 12 * 3_600_000))
            _ = try await Self.put(
                h, "/dev-0/live-activities/A-1", #"{"attributesType": "MatchAttributes", "token": "\#(Self.activityToken(1))"}"#)
            _ = try await Self.put(
                h, "/dev-1/live-activities/B-0", #"{"attributesType": "MatchAttributes", "token": "\#(Self.activityToken(2))"}"#)
            h.mock.script(token: Self.activityToken(1), .reject(status: 410, reason: "Unregistered", timestamp: TestHerald.t0.milliseconds))

            let id = try await Self.liveActivity(
                h, "match",
                #"{"event": "update", "attributesType": "MatchAttributes", "contentState": {"home": 1, "away": 0}, "priority": 10}"#)
            let status = try await h.waitFor(id, status: "published")
            #expect(status.delivery("sent") == 2 && status.delivery("tokensRemoved") == 1)
            #expect(Set(h.mock.notifications().map(\.token)) == [Self.activityToken(0), Self.activityToken(2)])
            #expect(h.mock.notifications().allSatisfy { $0.headers["apns-priority"] == "10" })
            // The gone activity is forgotten; the device and its other activity stay.
            let listed = try await h.client.call(.get, "/shop/k-admin/devices/dev-0/live-activities")
            #expect(listed.body["activities"]?[0]?["activityId"] == .string("A-0"))
            #expect(listed.body["activities"]?[1] == nil)
            #expect(try await h.registration("dev-0").status == .ok)

            // An end to one activity goes to it alone.
            h.mock.reset()
            let end = try await Self.liveActivity(
                h, "match",
                #"{"event": "end", "attributesType": "MatchAttributes", "activityId": "B-0", "contentState": {"home": 1, "away": 0}, "dismissalDate": 1800000600}"#
            )
            _ = try await h.waitFor(end, status: "published")
            #expect(h.mock.notifications().map(\.token) == [Self.activityToken(2)])
            let ended = try await h.client.call(.get, "/shop/k-admin/devices/dev-1/live-activities")
            #expect(ended.body["activities"]?[0]?["endedAt"] == .integer(TestHerald.t0.milliseconds))
            #expect(ended.body["activities"]?[0]?["expiresAt"] == .integer(1_800_000_600_000))
        }
    }

    @Test func refusalsAreClearAndStoreNothing() async throws {
        try await PublishHarness.with { h in
            try await h.registerDevices(0..<1, channels: ["match"])
            func publish(_ body: String, key: String = "k-server") async throws -> (HTTPResponse.Status, JSONValue) {
                let answer = try await h.client.call(.post, "/shop/\(key)/messaging/match/live-activity", json: body)
                return (answer.status, answer.body)
            }
            let update = #"{"event": "update", "attributesType": "T", "contentState": {"s": 1}}"#
            #expect(try await publish(update, key: "k-client").1["code"] == .integer(5007))
            #expect(
                try await publish(#"{"event": "update", "attributesType": "T", "contentState": {"s": null}}"#).1["code"] == .integer(8008))
            #expect(
                try await publish(#"{"event": "update", "attributesType": "T", "contentState": {}, "colour": 1}"#).1["code"]
                    == .integer(8008))
            let noToken = try await h.client.call(.put, Self.devices + "/dev-0/live-activities/A", json: #"{"attributesType": "T"}"#)
            #expect(noToken.status == .badRequest && noToken.body["code"] == .integer(8007))
            let notHex = try await h.client.call(
                .put, Self.devices + "/dev-0/live-activities/A", json: #"{"attributesType": "T", "token": "xyz"}"#)
            #expect(notHex.body["code"] == .integer(8008))
            let unknown = try await h.client.call(.put, Self.devices + "/nobody/activity-start-tokens/T", json: #"{"token": "aa"}"#)
            #expect(unknown.status == .notFound && unknown.body["code"] == .integer(5000))
            let gone = try await h.client.call(.delete, Self.devices + "/dev-0/live-activities/never")
            #expect(gone.status == .notFound && gone.body["code"] == .integer(5081))
            // Another app's admin sees nothing of shop's devices.
            #expect(try await h.client.call(.get, "/blog/b-admin/devices/dev-0/live-activities").status == .notFound)
            try await h.expectNoMoreRequests(than: 0)
        }
    }

    @Test func anAppWithoutTokenAuthIsRefused() async throws {
        try await PublishHarness.with(apns: false) { h in
            let answer = try await h.client.call(
                .post, "/shop/k-server/messaging/match/live-activity",
                json: #"{"event": "update", "attributesType": "T", "contentState": {"s": 1}}"#)
            #expect(answer.status == .badRequest && answer.body["code"] == .integer(5083))
        }
        var certificate = TestHerald.apps
        certificate[0].apns = APNsAppConfiguration(
            environment: .custom(url: "https://127.0.0.1:9", caFile: FixtureFiles.caFile), topic: PublishHarness.topic,
            authentication: .certificate(
                certificateFile: FixtureFiles.path("fixtures/tls/client.crt"), privateKeyFile: FixtureFiles.path("fixtures/tls/client.key"),
                passphrase: nil))
        try await TestHerald.with(apps: certificate) { h in
            let answer = try await h.client.call(
                .post, "/shop/k-server/messaging/match/live-activity",
                json: #"{"event": "update", "attributesType": "T", "contentState": {"s": 1}}"#)
            #expect(answer.status == .badRequest && answer.body["code"] == .integer(5082))
            #expect(answer.body.faultMessage?.contains("token authentication") == true)
        }
    }
}
