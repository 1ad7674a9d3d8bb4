import APNsMock
import Foundation
import HeraldAPNs
import HeraldCurl
import HeraldSigning
import HeraldTestSupport
import Testing

/// `APNsClient.broadcast` against the in-process mock APNs, over TLS: what the mock records, and Apple's reasons mapped.
@Suite struct APNsBroadcastClientTests {
    static let topic = BroadcastMockHarness.topic
    static let update = #"{"aps":{"event":"update","timestamp":1700000000,"content-state":{"score":2}}}"#

    @Test func aBroadcastIsRecordedWithTheRightHeadersAndPayload() async throws {
        let harness = try await BroadcastMockHarness.start()
        let channel = try await APNsChannelClientTests.channelClient(harness).create(bundleID: Self.topic, storagePolicy: .noMessageStored)
        let client = try Fixtures.client(for: harness.mock)
        defer { client.shutdown() }
        let requestID = "a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d"
        let result = await client.broadcast(
            APNsBroadcast(
                bundleID: Self.topic, channelID: channel, payload: APNsPayload(string: Self.update), storagePolicy: .noMessageStored,
                priority: .low, expiresAt: 1_900_000_000, requestID: requestID))
        let record = try #require(harness.mock.broadcasts().first)
        #expect(result == .sent(requestID: requestID, uniqueID: record.uniqueID))
        #expect(record.channelID == channel && record.bundleID == Self.topic && record.payload == Self.update)
        #expect(record.headers["apns-channel-id"] == channel)
        #expect(record.headers["apns-push-type"] == "liveactivity")
        #expect(record.headers["apns-priority"] == "1")
        #expect(record.headers["apns-expiration"] == "0")
        #expect(record.headers["apns-request-id"] == requestID)
        #expect(record.headers["apns-topic"] == nil && !record.isStart)
        #expect(harness.mock.liveActivityChecks().last?.problems == [])
        try await harness.shutdown()
    }

    @Test func aBroadcastRefusalIsMapped() async throws {
        let harness = try await BroadcastMockHarness.start()
        let channel = try await APNsChannelClientTests.channelClient(harness).create(bundleID: Self.topic, storagePolicy: .noMessageStored)
        let client = try Fixtures.client(for: harness.mock)
        defer { client.shutdown() }
        // Built as if the channel stored messages: a nonzero expiration, which a no-message-stored channel refuses.
        let wrong = await client.broadcast(
            APNsBroadcast(
                bundleID: Self.topic, channelID: channel, payload: APNsPayload(string: Self.update),
                storagePolicy: .mostRecentMessageStored, expiresAt: Int64(Date().timeIntervalSince1970) + 600))
        guard case .rejected(400, .known(.badExpirationDate), let requestID) = wrong else {
            Issue.record("expected BadExpirationDate, got \(wrong)")
            return
        }
        #expect(requestID != nil)
        let unknown = await client.broadcast(
            APNsBroadcast(
                bundleID: Self.topic, channelID: "dW5rbm93bg==", payload: APNsPayload(string: Self.update), storagePolicy: .noMessageStored)
        )
        #expect(unknown.reason == .known(.channelNotRegistered))
        #expect(harness.mock.broadcasts().isEmpty)
        try await harness.shutdown()
    }
}
