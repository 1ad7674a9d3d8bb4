import APNsMock
import Foundation
import Herald
import HeraldCore
import Hummingbird
import HummingbirdTesting
import Testing

/// A Live Activity's whole life through Herald against a mock APNs that knows each token's kind (the
/// reference's item 15): a start to the push-to-start tokens with `input-push-token`, the update tokens
/// the mock issues registered with Herald as the app would, then an update and an end on them, each on
/// the right kind of token with nothing a device would drop.
@Suite struct LiveActivityTokenFlowTests {
    static let topic = PublishHarness.topic
    static let type = "MatchAttributes"

    /// Devices 0 and 1 run the activity; device 2's push-to-start token is dead at Apple.
    static let devices = 0..<3
    static let deadDevice = 2

    @Test(arguments: PublishHarness.Database.available)
    func startRegisterUpdateEndEachGoesToItsKindOfToken(_ database: PublishHarness.Database) async throws {
        try await PublishHarness.with(database: database) { h in
            try await h.registerDevices(Self.devices, channels: ["match"])
            for index in Self.devices {
                let start = LiveActivityPublishTests.startToken(index)
                try h.mock.register(.device(PublishHarness.token(index), bundleID: Self.topic))
                var token = APNsMockToken.pushToStart(start, attributesType: Self.type, bundleID: Self.topic)
                if index == Self.deadDevice { token = token.unregistered(at: TestHerald.t0.milliseconds) }
                try h.mock.register(token)
                _ = try await LiveActivityPublishTests.put(
                    h, "/dev-\(index)/activity-start-tokens/\(Self.type)", #"{"token": "\#(start)"}"#)
            }

            // The start, asking each device for the started activity's update token.
            let start = try await LiveActivityPublishTests.liveActivity(
                h, "match",
                #"""
                {"event": "start", "attributesType": "MatchAttributes", "attributes": {"home": "Lyon", "away": "Nantes"},
                 "contentState": {"home": 0, "away": 0}, "alert": {"title": "Kick-off", "body": "Lyon v Nantes"}, "inputPushToken": true}
                """#)
            let started = try await h.waitFor(start, status: "published")
            #expect(started.delivery("sent") == 2 && started.delivery("tokensRemoved") == 1, "\(started)")
            let issued = h.mock.issuedTokens()
            #expect(Set(issued.map(\.startToken)) == Set([0, 1].map(LiveActivityPublishTests.startToken)))

            // The app registers each started activity's token with Herald.
            for activity in issued {
                let index = try #require([0, 1].first { LiveActivityPublishTests.startToken($0) == activity.startToken })
                _ = try await LiveActivityPublishTests.put(
                    h, "/dev-\(index)/live-activities/\(activity.activityId)",
                    #"{"attributesType": "\#(activity.attributesType)", "token": "\#(activity.token)"}"#)
            }
            for body in [
                #"{"event": "update", "attributesType": "MatchAttributes", "contentState": {"home": 1, "away": 0}, "alert": {"title": "Goal"}}"#,
                #"{"event": "end", "attributesType": "MatchAttributes", "contentState": {"home": 1, "away": 0}, "dismissalDate": 1800000600}"#,
            ] {
                let id = try await LiveActivityPublishTests.liveActivity(h, "match", body)
                let status = try await h.waitFor(id, status: "published")
                #expect(status.delivery("sent") == 2 && status.delivery("failed") == 0, "\(status)")
            }

            let checks = h.mock.liveActivityChecks()
            #expect(checks.allSatisfy { $0.problems.isEmpty }, "\(checks.map(\.problems))")
            let updateTokens = Set(issued.map(\.token))
            let startTokens = Set([0, 1].map(LiveActivityPublishTests.startToken))
            for event in ["start", "update", "end"] {
                let sent = checks.filter { $0.event == event }
                #expect(sent.count == 2, "\(event): \(sent.map(\.target))")
                #expect(sent.allSatisfy { $0.tokenKind == (event == "start" ? .pushToStart : .update) }, "\(event)")
                #expect(Set(sent.map(\.target)) == (event == "start" ? startTokens : updateTokens), "\(event)")
            }
            // The dead start token is gone from Herald; the device and its registration stay.
            let listed = try await h.client.call(.get, "/shop/k-admin/devices/dev-\(Self.deadDevice)/live-activities")
            #expect(listed.body["startTokens"] == .array([]))
            #expect(try await h.registration("dev-\(Self.deadDevice)").status == .ok)

            // The check can fail: an app that files an activity's update token as a push-to-start token gets a
            // start sent to it, and the device drops it.
            let misfiled = try #require(issued.first)
            let index = try #require([0, 1].first { LiveActivityPublishTests.startToken($0) == misfiled.startToken })
            _ = try await LiveActivityPublishTests.put(
                h, "/dev-\(index)/activity-start-tokens/ScoreAttributes", #"{"token": "\#(misfiled.token)"}"#)
            let wrong = try await LiveActivityPublishTests.liveActivity(
                h, "match",
                #"{"event": "start", "attributesType": "ScoreAttributes", "attributes": {}, "contentState": {"s": 0}, "alert": {"title": "On"}}"#
            )
            _ = try await h.waitFor(wrong, status: "published")
            let flagged = try #require(h.mock.liveActivityChecks().last)
            #expect(flagged.target == misfiled.token && flagged.tokenKind == .update)
            #expect(flagged.problems.contains { $0.contains("start goes to a push-to-start token") }, "\(flagged.problems)")
        }
    }

    @Test(arguments: PublishHarness.Database.available)
    func anUpdateSkipsAnActivityEndedBefore(_ database: PublishHarness.Database) async throws {
        try await PublishHarness.with(database: database) { h in
            try await h.registerDevices(0..<2, channels: ["match"])
            for index in 0..<2 {
                let token = LiveActivityPublishTests.activityToken(index)
                try h.mock.register(.update(token, activityId: "A-\(index)", attributesType: Self.type, bundleID: Self.topic))
                _ = try await LiveActivityPublishTests.put(
                    h, "/dev-\(index)/live-activities/A-\(index)", #"{"attributesType": "MatchAttributes", "token": "\#(token)"}"#)
            }
            let end = try await LiveActivityPublishTests.liveActivity(
                h, "match", #"{"event": "end", "attributesType": "MatchAttributes", "activityId": "A-0", "contentState": {"s": 9}}"#)
            _ = try await h.waitFor(end, status: "published")
            // The device would ignore an update to the ended activity (the mock flags one): only A-1 gets it.
            let update = try await LiveActivityPublishTests.liveActivity(
                h, "match", #"{"event": "update", "attributesType": "MatchAttributes", "contentState": {"s": 10}}"#)
            let status = try await h.waitFor(update, status: "published")
            #expect(status.delivery("sent") == 1, "\(status)")
            let checks = h.mock.liveActivityChecks()
            #expect(checks.map(\.target) == [0, 1].map(LiveActivityPublishTests.activityToken))
            #expect(checks.allSatisfy { $0.problems.isEmpty && $0.tokenKind == .update }, "\(checks.map(\.problems))")
        }
    }
}
