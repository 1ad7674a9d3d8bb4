import APNsMock
import Foundation
import HeraldCurl
import Testing

/// The mock's broadcast endpoint (`POST /4/broadcasts/apps/<bundle>` on the APNs host) over HTTP/2 and
/// TLS, check by check (the reference's oracle, items 11 to 13).
@Suite struct BroadcastMockTests {
    static let update = #"{"aps":{"event":"update","timestamp":1700000000,"content-state":{"score":1}}}"#

    @Test func headerChecks() async throws {
        let harness = try await BroadcastMockHarness.start()
        let channel = try await harness.createChannel(policy: 0)
        let valid = BroadcastMockHarness.broadcastHeaders(channel: channel)
        let cases: [(headers: [String], reason: String)] = [
            (Array(valid.dropFirst()), "MissingChannelId"),
            (["apns-channel-id: %%%"] + valid.dropFirst(), "BadChannelId"),
            (["apns-channel-id: dW5rbm93bg=="] + valid.dropFirst(), "ChannelNotRegistered"),
            (valid.filter { !$0.hasPrefix("apns-push-type") }, "MissingPushType"),
            (valid.map { $0.hasPrefix("apns-push-type") ? "apns-push-type: alert" : $0 }, "InvalidPushType"),
            (valid.filter { !$0.hasPrefix("apns-priority") }, "BadPriority"),
            (BroadcastMockHarness.broadcastHeaders(channel: channel, priority: "7"), "BadPriority"),
            (valid.filter { !$0.hasPrefix("apns-expiration") }, "BadExpirationDate"),
            (BroadcastMockHarness.broadcastHeaders(channel: channel, expiration: "soon"), "BadExpirationDate"),
            (BroadcastMockHarness.broadcastHeaders(channel: channel, expiration: "1900000000"), "BadExpirationDate"),
        ]
        for (headers, expected) in cases {
            let response = try await harness.broadcast(headers: headers, body: Self.update)
            #expect(response.status == 400, "\(expected)")
            #expect(reason(response) == expected, "\(headers)")
            #expect(response.headers["content-type"] == "application/json")
        }
        let suffixed = try await harness.broadcast(
            bundle: BroadcastMockHarness.topic + ".push-type.liveactivity", headers: valid, body: Self.update)
        #expect(suffixed.status == 400 && reason(suffixed) == "TopicDisallowed")
        let unauthenticated = try await harness.broadcast(headers: valid, body: Self.update, authorization: nil)
        #expect(unauthenticated.status == 403 && reason(unauthenticated) == "MissingProviderToken")
        harness.mock.setBroadcastCapability(bundle: BroadcastMockHarness.otherTopic, enabled: false)
        let off = try await harness.broadcast(bundle: BroadcastMockHarness.otherTopic, headers: valid, body: Self.update)
        #expect(reason(off) == "FeatureNotEnabled")
        #expect(harness.mock.broadcasts().isEmpty)
        try await harness.shutdown()
    }

    @Test func pushTypeInAnyCaseAndEveryPriorityAreAccepted() async throws {
        let harness = try await BroadcastMockHarness.start()
        let channel = try await harness.createChannel(policy: 0)
        for (pushType, priority) in [("liveactivity", "10"), ("LiveActivity", "5"), ("Liveactivity", "1")] {
            let headers = [
                "apns-channel-id: \(channel)", "apns-push-type: \(pushType)", "apns-priority: \(priority)", "apns-expiration: 0",
            ]
            let response = try await harness.broadcast(headers: headers, body: Self.update)
            #expect(response.status == 200, "\(pushType) \(priority): \(reason(response) ?? "")")
        }
        #expect(harness.mock.broadcasts().map { $0.headers["apns-priority"] } == ["10", "5", "1"])
        try await harness.shutdown()
    }

    @Test func bodyChecks() async throws {
        let harness = try await BroadcastMockHarness.start()
        let channel = try await harness.createChannel(policy: 0)
        let headers = BroadcastMockHarness.broadcastHeaders(channel: channel)
        let empty = try await harness.broadcast(headers: headers, body: "")
        #expect(empty.status == 400 && reason(empty) == "PayloadEmpty")
        let prefix = #"{"aps":{"event":"update"},"pad":""#
        let exact = prefix + String(repeating: "a", count: 5120 - prefix.utf8.count - 2) + #""}"#
        #expect(exact.utf8.count == 5120)
        let fits = try await harness.broadcast(headers: headers, body: exact)
        #expect(fits.status == 200)
        let tooLarge = try await harness.broadcast(
            headers: headers, body: exact.replacingOccurrences(of: "\"pad\":\"", with: "\"pad\":\"a"))
        #expect(tooLarge.status == 413 && reason(tooLarge) == "PayloadTooLarge")
        try await harness.shutdown()
    }

    @Test func acceptedBroadcastsAreRecordedPerChannelInOrder() async throws {
        let harness = try await BroadcastMockHarness.start()
        let channel = try await harness.createChannel(policy: 0)
        let requestID = "6f1c2a9e-6d0b-4b7e-9a55-0c1d2e3f4a5b"
        let first = try await harness.broadcast(
            headers: BroadcastMockHarness.broadcastHeaders(channel: channel) + ["apns-request-id: \(requestID)"], body: Self.update)
        #expect(first.status == 200 && first.body.isEmpty)
        #expect(first.headers["apns-request-id"] == requestID)
        #expect(isLowercaseUUID(first.headers["apns-unique-id"]))
        let second = try await harness.broadcast(
            headers: BroadcastMockHarness.broadcastHeaders(channel: channel, priority: "5"),
            body: Self.update.replacingOccurrences(of: "update", with: "end"))
        #expect(isLowercaseUUID(second.headers["apns-request-id"]))
        let records = harness.mock.broadcasts()
        #expect(records.count == 2)
        #expect(records.map(\.sequence) == records.map(\.sequence).sorted())
        #expect(records.allSatisfy { $0.channelID == channel && $0.bundleID == BroadcastMockHarness.topic })
        #expect(records.first?.payload == Self.update)
        #expect(records.first?.requestID == requestID && records.first?.uniqueID == first.headers["apns-unique-id"])
        #expect(records.first?.headers["apns-push-type"] == "liveactivity" && records.first?.headers["authorization"] == nil)
        #expect(records.last?.headers["apns-priority"] == "5" && records.last?.storedUntil == nil)
        try await harness.shutdown()
    }

    @Test func aMostRecentMessageChannelKeepsOnlyTheLatest() async throws {
        let harness = try await BroadcastMockHarness.start()
        let stored = try await harness.createChannel(policy: 1)
        let now = Int64(Date().timeIntervalSince1970)
        for (index, expiration) in [now + 60, now + 86_400].enumerated() {
            let body = Self.update.replacingOccurrences(of: #""score":1"#, with: #""score":\#(index)"#)
            let response = try await harness.broadcast(
                headers: BroadcastMockHarness.broadcastHeaders(channel: stored, expiration: String(expiration)), body: body)
            #expect(response.status == 200)
        }
        let records = harness.mock.broadcasts()
        #expect(records.count == 1)
        #expect(records.first?.payload.contains(#""score":1"#) == true)
        // Kept until the sooner of apns-expiration and 8 hours after it arrived.
        let until = try #require(records.first?.storedUntil)
        #expect(until < Double(now + 86_400) && abs(until - Double(now + 8 * 3600)) < 60)
        try await harness.shutdown()
    }

    @Test func aBroadcastStartIsRecordedAndFlagged() async throws {
        let harness = try await BroadcastMockHarness.start()
        let channel = try await harness.createChannel(policy: 0)
        let start =
            #"{"aps":{"event":"start","timestamp":1700000000,"content-state":{},"alert":{"title":"Go"},"attributes-type":"Match","attributes":{}}}"#
        let response = try await harness.broadcast(headers: BroadcastMockHarness.broadcastHeaders(channel: channel), body: start)
        #expect(response.status == 200)
        #expect(harness.mock.broadcasts().map(\.isStart) == [true])
        let check = try #require(harness.mock.liveActivityChecks().last)
        #expect(check.route == .broadcast && check.target == channel)
        #expect(check.problems.contains { $0.contains("cannot be broadcast") })
        _ = try await harness.broadcast(headers: BroadcastMockHarness.broadcastHeaders(channel: channel), body: Self.update)
        #expect(harness.mock.broadcasts().map(\.isStart) == [true, false])
        try await harness.shutdown()
    }
}
