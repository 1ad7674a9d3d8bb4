import APNsMock
import Foundation
import HeraldCurl
import Testing

/// The mock's channel-management host over HTTP/2 and TLS, check by check (the reference's oracle,
/// items 1 to 10): each test fails if the mock stops making its check.
@Suite struct ChannelManagementMockTests {
    static let channels = "/1/apps/\(BroadcastMockHarness.topic)/channels"
    static let allChannels = "/1/apps/\(BroadcastMockHarness.topic)/all-channels"
    static let createBody = #"{"message-storage-policy":1,"push-type":"LiveActivity"}"#

    @Test func createReadListDeleteRoundTrip() async throws {
        let harness = try await BroadcastMockHarness.start()
        let created = try await harness.manage("POST", Self.channels, body: Self.createBody)
        #expect(created.status == 201)
        #expect(created.body.isEmpty)
        let id = try #require(created.headers["apns-channel-id"])
        #expect(Data(base64Encoded: id) != nil)

        let read = try await harness.manage("GET", Self.channels, headers: ["apns-channel-id: \(id)"])
        #expect(read.status == 200)
        #expect(object(read)?["message-storage-policy"] as? Int == 1)
        #expect(object(read)?["push-type"] as? String == "LiveActivity")
        let list = try await harness.manage("GET", Self.allChannels)
        #expect(list.status == 200 && object(list)?["channels"] as? [String] == [id])
        #expect(harness.mock.channels().map(\.channelID) == [id])

        let deleted = try await harness.manage("DELETE", Self.channels, headers: ["apns-channel-id: \(id)"])
        #expect(deleted.status == 204 && deleted.body.isEmpty)
        let gone = try await harness.manage("GET", Self.channels, headers: ["apns-channel-id: \(id)"])
        #expect(gone.status == 400 && reason(gone) == "ChannelNotRegistered")
        let again = try await harness.manage("DELETE", Self.channels, headers: ["apns-channel-id: \(id)"])
        #expect(reason(again) == "ChannelNotRegistered")
        #expect(object(try await harness.manage("GET", Self.allChannels))?["channels"] as? [String] == [])
        try await harness.shutdown()
    }

    @Test func channelIDsAreRandomBase64OfVaryingLengthAndNeverReissued() async throws {
        let harness = try await BroadcastMockHarness.start()
        var ids: [String] = []
        for _ in 0..<24 { ids.append(try await harness.createChannel()) }
        #expect(Set(ids).count == ids.count)
        #expect(Set(ids.map(\.count)).count > 1)
        for id in ids { _ = try await harness.manage("DELETE", Self.channels, headers: ["apns-channel-id: \(id)"]) }
        for _ in 0..<24 { #expect(!ids.contains(try await harness.createChannel())) }
        try await harness.shutdown()
    }

    @Test func authErrors() async throws {
        let harness = try await BroadcastMockHarness.start()
        let missing = try await harness.manage("GET", Self.allChannels, authorization: nil)
        #expect(missing.status == 403 && reason(missing) == "MissingProviderToken")
        let invalid = try await harness.manage("GET", Self.allChannels, authorization: "bearer not.a.jwt")
        #expect(invalid.status == 403 && reason(invalid) == "InvalidProviderToken")
        let old = try BroadcastMockHarness.bearer(age: 7200).dropFirst("authorization: ".count)
        let expired = try await harness.manage("GET", Self.allChannels, authorization: String(old))
        #expect(expired.status == 403 && reason(expired) == "ExpiredProviderToken")
        #expect(expired.headers["content-type"] == "application/json")
        try await harness.shutdown()
    }

    @Test func topicAndCapabilityChecks() async throws {
        let harness = try await BroadcastMockHarness.start()
        let suffixed = try await harness.manage(
            "POST", "/1/apps/\(BroadcastMockHarness.topic).push-type.liveactivity/channels", body: Self.createBody)
        #expect(suffixed.status == 400 && reason(suffixed) == "TopicDisallowed")
        let foreign = try await harness.manage("POST", "/1/apps/com.example.someone-else/channels", body: Self.createBody)
        #expect(foreign.status == 403 && reason(foreign) == "TopicMismatch")
        let id = try await harness.createChannel(bundle: BroadcastMockHarness.otherTopic)
        harness.mock.setBroadcastCapability(bundle: BroadcastMockHarness.otherTopic, enabled: false)
        let off = try await harness.manage("POST", "/1/apps/\(BroadcastMockHarness.otherTopic)/channels", body: Self.createBody)
        #expect(off.status == 400 && reason(off) == "FeatureNotEnabled")
        // Turning the capability off deleted the bundle's channels for good.
        harness.mock.setBroadcastCapability(bundle: BroadcastMockHarness.otherTopic, enabled: true)
        let read = try await harness.manage(
            "GET", "/1/apps/\(BroadcastMockHarness.otherTopic)/channels", headers: ["apns-channel-id: \(id)"])
        #expect(reason(read) == "ChannelNotRegistered")
        try await harness.shutdown()
    }

    @Test func requestIDIsEchoedOrGenerated() async throws {
        let harness = try await BroadcastMockHarness.start()
        let mine = "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0"
        let echoed = try await harness.manage("GET", Self.allChannels, headers: ["apns-request-id: \(mine)"])
        #expect(echoed.headers["apns-request-id"] == mine)
        let failed = try await harness.manage("GET", Self.channels, headers: ["apns-request-id: \(mine)"])
        #expect(failed.status == 400 && failed.headers["apns-request-id"] == mine)
        let generated = try await harness.manage("POST", Self.channels, body: Self.createBody)
        #expect(isLowercaseUUID(generated.headers["apns-request-id"]))
        let generatedError = try await harness.manage("GET", Self.channels)
        #expect(isLowercaseUUID(generatedError.headers["apns-request-id"]))
        try await harness.shutdown()
    }

    @Test func createBodyChecks() async throws {
        let harness = try await BroadcastMockHarness.start()
        let cases: [(body: String?, reason: String)] = [
            (nil, "PayloadEmpty"),
            ("{", "BadRequestPayload"),
            ("[1]", "BadRequestPayload"),
            (#"{"message-storage-policy":0,"push-type":"LiveActivity","ttl":5}"#, "BadRequestParams"),
            (#"{"message-storage-policy":2,"push-type":"LiveActivity"}"#, "BadRequestParams"),
            (#"{"message-storage-policy":"1","push-type":"LiveActivity"}"#, "BadRequestParams"),
            (#"{"message-storage-policy":0,"push-type":"liveactivity"}"#, "BadRequestParams"),
            (#"{"message-storage-policy":0}"#, "BadRequestParams"),
        ]
        for (body, expected) in cases {
            let response = try await harness.manage("POST", Self.channels, body: body ?? "")
            #expect(response.status == 400, "\(body ?? "empty")")
            #expect(reason(response) == expected, "\(body ?? "empty")")
            #expect(response.headers["content-type"] == "application/json")
        }
        #expect(harness.mock.channels().isEmpty)
        try await harness.shutdown()
    }

    @Test func theChannelLimitIsPerBundleAndEnvironment() async throws {
        let harness = try await BroadcastMockHarness.start(channelLimit: 2)
        let first = try await harness.createChannel()
        _ = try await harness.createChannel()
        let over = try await harness.manage("POST", Self.channels, body: Self.createBody)
        #expect(over.status == 400 && reason(over) == "CannotCreateChannelConfig")
        _ = try await harness.createChannel(bundle: BroadcastMockHarness.otherTopic)
        _ = try await harness.manage("DELETE", Self.channels, headers: ["apns-channel-id: \(first)"])
        #expect(try await harness.createChannel() != first)
        try await harness.shutdown()
    }

    @Test func channelIDChecks() async throws {
        let harness = try await BroadcastMockHarness.start()
        _ = try await harness.createChannel()
        let missing = try await harness.manage("GET", Self.channels)
        #expect(missing.status == 400 && reason(missing) == "MissingChannelId")
        let missingDelete = try await harness.manage("DELETE", Self.channels)
        #expect(reason(missingDelete) == "MissingChannelId")
        let notBase64 = try await harness.manage("GET", Self.channels, headers: ["apns-channel-id: not base64!"])
        #expect(reason(notBase64) == "BadChannelId")
        let long = try await harness.manage("GET", Self.channels, headers: ["apns-channel-id: \(String(repeating: "QUFB", count: 20))"])
        #expect(reason(long) == "BadChannelId")
        let unknown = try await harness.manage("GET", Self.channels, headers: ["apns-channel-id: dW5rbm93bi1jaGFubmVs"])
        #expect(unknown.status == 400 && reason(unknown) == "ChannelNotRegistered")
        try await harness.shutdown()
    }

    @Test func unknownPathsAndMethods() async throws {
        let harness = try await BroadcastMockHarness.start()
        for path in ["/1/apps/\(BroadcastMockHarness.topic)/channel", "/2/apps/x/channels", "/1/apps//channels", "/"] {
            let response = try await harness.manage("GET", path)
            #expect(response.status == 404 && reason(response) == "BadPath", "\(path)")
        }
        let put = try await harness.manage("PUT", Self.channels, body: Self.createBody)
        #expect(put.status == 405 && reason(put) == "MethodNotAllowed")
        let postList = try await harness.manage("POST", Self.allChannels, body: "{}")
        #expect(postList.status == 405 && reason(postList) == "MethodNotAllowed")
        try await harness.shutdown()
    }

    @Test func channelsDoNotCrossEnvironments() async throws {
        let store = APNsChannelStore()
        let sandbox = try await BroadcastMockHarness.start(environment: .sandbox, store: store)
        let production = try await BroadcastMockHarness.start(environment: .production, store: store)
        let id = try await sandbox.createChannel()
        let read = try await production.manage("GET", Self.channels, headers: ["apns-channel-id: \(id)"])
        #expect(read.status == 400 && reason(read) == "ChannelNotRegistered")
        #expect(object(try await production.manage("GET", Self.allChannels))?["channels"] as? [String] == [])
        let sent = try await production.broadcast(headers: BroadcastMockHarness.broadcastHeaders(channel: id), body: #"{"aps":{}}"#)
        #expect(reason(sent) == "ChannelNotRegistered")
        #expect(sandbox.mock.channels().map(\.channelID) == [id] && production.mock.channels().isEmpty)
        #expect(store.channels(environment: .sandbox).count == 1)
        try await sandbox.shutdown()
        try await production.shutdown()
    }
}
