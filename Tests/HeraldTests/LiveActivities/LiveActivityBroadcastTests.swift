import APNsMock
import Foundation
import Herald
import HeraldCore
import Hummingbird
import HummingbirdTesting
import Testing

/// APNs broadcast channels: made through the mock's channel management host, bound to a Herald channel,
/// and an update or end to that channel sent as one broadcast request whatever its devices.
@Suite struct LiveActivityBroadcastTests {
    static let channels = "/shop/k-admin/live-activities/channels"

    static func create(_ h: PublishHarness.Harness, _ body: String) async throws -> JSONValue {
        let answer = try await h.client.call(.post, channels, json: body)
        #expect(answer.status == .ok, "create answered \(answer.status): \(answer.body)")
        return answer.body
    }

    static func path(_ id: String) -> String {
        channels + "/" + (id.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? id)
    }

    @Test(arguments: PublishHarness.Database.available)
    func anUpdateToABoundChannelIsOneBroadcastAndAStartFollowsIt(_ database: PublishHarness.Database) async throws {
        try await PublishHarness.with(database: database) { h in
            try await h.registerDevices(0..<40, channels: ["match"])
            for index in 0..<40 {
                _ = try await LiveActivityPublishTests.put(
                    h, "/dev-\(index)/activity-start-tokens/MatchAttributes",
                    #"{"token": "\#(LiveActivityPublishTests.startToken(index % 10))"}"#)
                _ = try await LiveActivityPublishTests.put(
                    h, "/dev-\(index)/live-activities/A-\(index)",
                    #"{"attributesType": "MatchAttributes", "token": "\#(LiveActivityPublishTests.activityToken(index % 10))"}"#)
            }
            let created = try await Self.create(h, #"{"storagePolicy": 0, "channel": "match"}"#)
            guard case .string(let channelId)? = created["channelId"] else { throw HarnessError("no channelId in \(created)") }
            #expect(created["channel"] == .string("match") && created["storagePolicy"] == .integer(0))
            #expect(h.mock.channels().map(\.channelID) == [channelId])

            // A start still goes per token (Apple cannot start by broadcast), carrying the channel's id.
            let start = try await LiveActivityPublishTests.liveActivity(
                h, "match",
                #"{"event": "start", "attributesType": "MatchAttributes", "attributes": {"home": "A"}, "contentState": {"s": 0}, "alert": {"title": "On"}}"#
            )
            _ = try await h.waitFor(start, status: "published")
            #expect(h.mock.notifications().count == 40)
            for notification in h.mock.notifications() {
                let aps = try JSONValue.parse(Array(notification.payload.utf8))["aps"]
                #expect(aps?["input-push-channel"] == .string(channelId))
            }

            // An update and an end: one broadcast request each, none per device.
            let before = h.mock.notifications().count
            for body in [
                #"{"event": "update", "attributesType": "MatchAttributes", "contentState": {"s": 1}, "priority": 10}"#,
                #"{"event": "end", "attributesType": "MatchAttributes", "contentState": {"s": 2}}"#,
            ] {
                let id = try await LiveActivityPublishTests.liveActivity(h, "match", body)
                let status = try await h.waitFor(id, status: "published")
                #expect(status.delivery("sent") == 1 && status.delivery("failed") == 0)
            }
            #expect(h.mock.notifications().count == before)
            let broadcasts = h.mock.broadcasts()
            #expect(broadcasts.count == 2)
            #expect(broadcasts.allSatisfy { $0.channelID == channelId })
            #expect(broadcasts.map { $0.headers["apns-priority"] } == ["10", "5"])
            #expect(broadcasts.allSatisfy { $0.headers["apns-expiration"] == "0" })
            #expect(h.mock.liveActivityChecks().allSatisfy { $0.problems.isEmpty }, "\(h.mock.liveActivityChecks().map(\.problems))")
        }
    }

    @Test func channelsAreListedReboundAndDeletedAtApple() async throws {
        try await PublishHarness.with { h in
            let first = try await Self.create(h, #"{"channel": "match"}"#)
            let second = try await Self.create(h, #"{"storagePolicy": 1}"#)
            guard case .string(let a)? = first["channelId"], case .string(let b)? = second["channelId"] else {
                throw HarnessError("no ids")
            }
            // Binding "match" to the second channel takes it from the first.
            let moved = try await h.client.call(.put, Self.path(b), json: #"{"channel": "match"}"#)
            #expect(moved.status == .ok && moved.body["channel"] == .string("match"))
            // Listed oldest first; two made in the same millisecond (the test's clock stands still) in id order.
            guard case .array(let listed)? = try await h.client.call(.get, Self.channels).body["channels"] else {
                throw HarnessError("no channel list")
            }
            let byId = Dictionary(uniqueKeysWithValues: listed.compactMap { item in item["channelId"]?.scalarText.map { ($0, item) } })
            #expect(listed.count == 2)
            #expect(byId[a]?["channel"] == .null)
            #expect(byId[b]?["channel"] == .string("match") && byId[b]?["storagePolicy"] == .integer(1))
            #expect(try await h.client.call(.delete, Self.path(a)).status == .ok)
            #expect(Set(h.mock.channels().map(\.channelID)) == [b])
            let unknown = try await h.client.call(.delete, Self.path(a))
            #expect(unknown.status == .notFound && unknown.body["code"] == .integer(5085))
            // Apple's refusal reaches the admin with Apple's reason.
            h.mock.setBroadcastCapability(bundle: PublishHarness.topic, enabled: false)
            let refused = try await h.client.call(.post, Self.channels, json: "{}")
            #expect(refused.status == .badGateway && refused.body["code"] == .integer(5084))
            #expect(refused.body.faultMessage?.contains("FeatureNotEnabled") == true)
            // Only the admin key, and only the app's own channels.
            #expect(try await h.client.call(.get, "/shop/k-server/live-activities/channels").status == .forbidden)
            #expect(try await h.client.call(.get, "/blog/b-admin/live-activities/channels").body["channels"] == .array([]))
        }
    }

    @Test func aBroadcastApnsRefusesFailsTheMessageWithApplesReason() async throws {
        try await PublishHarness.with { h in
            try await h.registerDevices(0..<2, channels: ["match"])
            let created = try await Self.create(h, #"{"channel": "match"}"#)
            guard case .string(let id)? = created["channelId"] else { throw HarnessError("no id") }
            // The channel is gone at Apple but still bound here: APNs answers ChannelNotRegistered.
            h.mock.setBroadcastCapability(bundle: PublishHarness.topic, enabled: false)
            h.mock.setBroadcastCapability(bundle: PublishHarness.topic, enabled: true)
            #expect(!h.mock.channels().map(\.channelID).contains(id))
            let message = try await LiveActivityPublishTests.liveActivity(
                h, "match", #"{"event": "update", "attributesType": "MatchAttributes", "contentState": {"s": 1}}"#)
            let status = try await h.waitFor(message, status: "failed")
            #expect(status.delivery("failed") == 1)
            #expect(status["errorMessage"]?.scalarText?.contains("ChannelNotRegistered") == true, "\(status)")
        }
    }
}
