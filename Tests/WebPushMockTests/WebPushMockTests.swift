import Foundation
import HeraldCurl
import Testing
import WebPushMock

/// The mock push service over real sockets (TLS, HTTP/2, curl): what it accepts and what it records.
@Suite struct WebPushMockTests {
    @Test func aValidPushIsDecryptedAndRecordedWithItsHeaders() async throws {
        let harness = try await WebPushMockHarness.start()
        let payload = #"{"title":"Hello","body":"From Herald"}"#
        let response = try await harness.push(to: "alice", payload, ttl: "3600", urgency: "high", topic: "news_1-A")
        #expect(response.status == 201)
        #expect(response.body.isEmpty)
        let location = try #require(response.headers["location"])
        #expect(location.hasPrefix(harness.mock.baseURL + "/message/") && location.count == harness.mock.baseURL.count + 45)
        #expect(response.headers["ttl"] == "3600")
        let message = try #require(harness.mock.messages().first)
        #expect(harness.mock.messages().count == 1)
        #expect(message.subscriptionID == "alice" && message.text == payload)
        #expect(message.ttl == 3600 && message.urgency == "high" && message.topic == "news_1-A")
        #expect(message.vapidSubject == WebPushMockHarness.subject)
        #expect(message.vapidAudience == "https://127.0.0.1:\(harness.mock.port)")
        #expect(message.vapidPublicKey == WebPushMockHarness.vapidPublicKey)
        #expect(message.location == location && message.connection == 1 && message.stream == 1)
        let stats = harness.mock.stats()
        #expect(stats.pushes == 1 && stats.accepted == 1 && stats.byStatus == ["201": 1])
        #expect(stats.vapidVerifications == 1 && stats.vapidRejections == 0 && stats.decryptFailures == 0)
        try await harness.shutdown()
    }

    @Test func theLocalhostOriginIsAnAudienceToo() async throws {
        let harness = try await WebPushMockHarness.start()
        let localhost = try harness.authorization(audience: harness.mock.origin(host: "localhost"))
        #expect(try await harness.push(authorization: localhost).status == 201)
        #expect(harness.mock.messages().first?.vapidAudience == harness.mock.baseURL)
        try await harness.shutdown()
    }

    @Test func aPushWithoutPayloadHasNoContentEncoding() async throws {
        let harness = try await WebPushMockHarness.start()
        let empty = try await harness.push(to: "bob", body: [], urgency: "very-low", contentEncoding: nil)
        #expect(empty.status == 201)
        #expect(harness.mock.messages(subscription: "bob").first?.plaintext == [])
        let encodedButEmpty = try await harness.push(to: "bob", body: [])
        #expect(encodedButEmpty.status == 400 && json(encodedButEmpty)["errno"] as? Int == 110)
        #expect(harness.mock.messages().count == 1)
        try await harness.shutdown()
    }

    @Test func withDecryptionOffTheHeaderIsStillCheckedAndNothingIsOpened() async throws {
        let harness = try await WebPushMockHarness.start(decrypt: false)
        #expect(try await harness.push(to: "carol", "secret").status == 201)
        let record = try #require(harness.mock.messages().first)
        #expect(record.plaintext == nil && record.subscriptionID == "carol")
        // A body whose key id is not 65 bytes is refused without any key agreement.
        var body = try WebPushMockHarness.body("secret", for: "carol")
        body[20] = 64
        let refused = try await harness.push(to: "carol", body: body)
        #expect(refused.status == 400 && message(refused).contains("idlen"))
        #expect(harness.mock.stats().decryptFailures == 1)
        try await harness.shutdown()
    }
}
