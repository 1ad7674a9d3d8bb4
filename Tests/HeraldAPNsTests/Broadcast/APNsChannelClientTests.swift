import APNsMock
import Foundation
import HeraldAPNs
import HeraldCurl
import HeraldSigning
import HeraldTestSupport
import Testing

/// Herald's channel-management client against the in-process mock's management host, over TLS.
@Suite struct APNsChannelClientTests {
    static let topic = BroadcastMockHarness.topic

    static func channelClient(_ harness: BroadcastMockHarness) throws -> APNsChannelClient {
        APNsChannelClient(
            configuration: APNsChannelClientConfiguration(baseURL: harness.mock.manageBaseURL!, caFile: FixtureFiles.caFile),
            providerToken: APNsProviderToken(key: try Fixtures.signingKey()))
    }

    @Test func appleHostsPerEnvironment() {
        #expect(
            APNsChannelClientConfiguration(environment: .development)?.baseURL == "https://api-manage-broadcast.sandbox.push.apple.com:2195"
        )
        #expect(APNsChannelClientConfiguration(environment: .production)?.baseURL == "https://api-manage-broadcast.push.apple.com:2196")
        #expect(APNsChannelClientConfiguration(environment: .custom(url: "https://localhost:1", caFile: nil)) == nil)
    }

    @Test func createReadListDeleteRoundTrip() async throws {
        let harness = try await BroadcastMockHarness.start()
        let client = try Self.channelClient(harness)
        let stored = try await client.create(bundleID: Self.topic, storagePolicy: .mostRecentMessageStored)
        let plain = try await client.create(bundleID: Self.topic, storagePolicy: .noMessageStored)
        #expect(try await client.read(bundleID: Self.topic, channelID: stored) == .mostRecentMessageStored)
        #expect(try await client.read(bundleID: Self.topic, channelID: plain) == .noMessageStored)
        #expect(Set(try await client.list(bundleID: Self.topic)) == [stored, plain])
        #expect(harness.mock.channels().map(\.storagePolicy) == [1, 0])

        try await client.delete(bundleID: Self.topic, channelID: stored)
        #expect(try await client.list(bundleID: Self.topic) == [plain])
        await #expect(throws: APNsChannelError.self) { _ = try await client.read(bundleID: Self.topic, channelID: stored) }
        try await harness.shutdown()
    }

    @Test func errorsCarryAppleReasonStatusAndRequestID() async throws {
        let harness = try await BroadcastMockHarness.start()
        let client = try Self.channelClient(harness)
        let requestID = "3b0a4c1e-2d5f-4a6b-8c7d-9e0f1a2b3c4d"
        do {
            try await client.delete(bundleID: Self.topic, channelID: "dW5rbm93bg==", requestID: requestID)
            Issue.record("deleting an unknown channel succeeded")
        } catch {
            #expect(error == .rejected(status: 400, reason: .known(.channelNotRegistered), requestID: requestID))
            #expect(error.status == 400)
        }
        harness.mock.setBroadcastCapability(bundle: Self.topic, enabled: false)
        do {
            _ = try await client.create(bundleID: Self.topic, storagePolicy: .noMessageStored)
            Issue.record("created a channel without the capability")
        } catch {
            #expect(error.reason == .known(.featureNotEnabled) && error.status == 400)
        }
        #expect(APNsBroadcastReason("SomethingNew") == .unknown("SomethingNew"))
        try await harness.shutdown()
    }
}
