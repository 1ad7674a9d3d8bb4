import APNsMock
import Foundation
import HeraldAPNs
import HeraldCore
import HeraldCurl
import Testing

/// The client and the mock together over real sockets.
@Suite struct ClientDeliveryTests {
    @Test(arguments: Fixtures.Transport.allCases)
    func headersAndPayloadArriveAsSent(_ transport: Fixtures.Transport) async throws {
        let mock = try await Fixtures.mock(transport)
        let client = try Fixtures.client(for: mock)
        defer { client.shutdown() }
        let id = UUID()
        let payload = APNsPayload(string: #"{"aps":{"content-available":1},"order":"4711","emoji":"🚀"}"#)
        let notification = APNsNotification(
            deviceToken: Fixtures.token(1), payload: payload, pushType: .background, topic: Fixtures.topic,
            expiration: 1_900_000_000, collapseID: "orders", apnsID: id)
        let outcome = await client.send(notification)
        guard case .delivered(let response) = outcome else {
            Issue.record("not delivered: \(outcome)")
            try await mock.shutdown()
            return
        }
        #expect(response.status == 200)
        #expect(response.apnsID == id.uuidString.lowercased())
        let recorded = mock.notifications()
        #expect(recorded.count == 1)
        let first = try #require(recorded.first)
        #expect(first.token == Fixtures.token(1))
        #expect(first.payload == payload.string)
        #expect(first.headers["apns-push-type"] == "background")
        #expect(first.headers["apns-topic"] == Fixtures.topic)
        #expect(first.headers["apns-priority"] == "5")
        #expect(first.headers["apns-expiration"] == "1900000000")
        #expect(first.headers["apns-collapse-id"] == "orders")
        #expect(first.headers["apns-id"] == id.uuidString.lowercased())
        #expect(first.headers["authorization"] == nil)
        try await mock.shutdown()
    }

    @Test func aVoipPushGoesToTheSuffixedTopicWithItsLargerLimit() async throws {
        let mock = try await Fixtures.mock(.cleartext)
        let client = try Fixtures.client(for: mock)
        defer { client.shutdown() }
        let big = APNsPayload(string: #"{"a":""# + String(repeating: "v", count: 5000) + #""}"#)
        let outcome = await client.send(
            APNsNotification(deviceToken: Fixtures.token(2), payload: big, pushType: .voip, topic: Fixtures.topic))
        #expect(outcome.isDelivered)
        #expect(mock.notifications().first?.headers["apns-topic"] == Fixtures.topic + ".voip")
        try await mock.shutdown()
    }

    @Test func everyScriptedReasonComesBackTyped() async throws {
        let mock = try await Fixtures.mock(.tls)
        let client = try Fixtures.client(for: mock)
        defer { client.shutdown() }
        // ExpiredProviderToken makes the client re-sign and retry at once, which this mock (like
        // APNs) answers with TooManyProviderTokenUpdates; ClientAuthTests covers a real expiry.
        let reasons = APNsReason.allKnown.filter { $0 != .known(.expiredProviderToken) }
        for (index, reason) in reasons.enumerated() {
            let timestamp: Int64? = reason.status == 410 ? 1_700_000_000_000 + Int64(index) : nil
            mock.script(token: Fixtures.token(100 + index), .reject(status: reason.status!, reason: reason.name, timestamp: timestamp))
        }
        mock.script(token: Fixtures.token(999), .reject(status: 400, reason: "BrandNewReason"))
        var notifications = reasons.indices.map { Fixtures.notification(100 + $0) }
        notifications.append(Fixtures.notification(999))
        let outcomes = await client.sendAll(notifications)
        #expect(outcomes.count == notifications.count)
        for (index, reason) in reasons.enumerated() {
            guard case .rejected(let response) = outcomes[index] else {
                Issue.record("\(reason): \(String(describing: outcomes[index]))")
                continue
            }
            #expect(response.status == reason.status)
            #expect(response.reason == reason)
            #expect(response.apnsID != nil)
            #expect(response.timestamp == (reason.status == 410 ? 1_700_000_000_000 + Int64(index) : nil))
        }
        #expect(outcomes[reasons.count]?.reason == .unknown("BrandNewReason"))
        #expect(mock.notifications().isEmpty)
        try await mock.shutdown()
    }

    @Test func theMockAnswersRequestsItJudgesWrongWithAPNsReasons() async throws {
        let mock = try await Fixtures.mock(.cleartext)
        let client = try Fixtures.client(for: mock)
        defer { client.shutdown() }
        // Not JSON: the client does not parse payloads, the server does.
        let notJSON = await client.send(
            APNsNotification(deviceToken: Fixtures.token(3), payload: APNsPayload(string: "hello"), topic: Fixtures.topic))
        #expect(notJSON.status == 400)
        // A topic the mock does not know.
        let otherTopic = await client.send(
            APNsNotification(deviceToken: Fixtures.token(4), payload: Fixtures.payload, topic: "com.example.other"))
        #expect(otherTopic.reason == .known(.topicDisallowed))
        #expect(APNsRetryPolicy().decide(otherTopic, attempt: 1) == .abort("APNs rejected the app's topic: TopicDisallowed"))
        try await mock.shutdown()
    }

    @Test func aRequestAPNsWouldRejectIsRejectedLocallyAndNeverSent() async throws {
        let mock = try await Fixtures.mock(.cleartext)
        let client = try Fixtures.client(for: mock)
        defer { client.shutdown() }
        let huge = APNsPayload(string: #"{"a":""# + String(repeating: "x", count: 4100) + #""}"#)
        #expect(await client.send(Fixtures.notification(1, payload: huge)) == .rejectedLocally(.known(.payloadTooLarge)))
        #expect(
            await client.send(APNsNotification(deviceToken: "not-hex", payload: Fixtures.payload, topic: Fixtures.topic))
                == .rejectedLocally(.known(.badDeviceToken)))
        #expect(mock.stats().requests == 0)
        try await mock.shutdown()
    }

    @Test func certificateAuthDeliversAndAClientWithoutACertificateFailsAtTLS() async throws {
        let mock = try await Fixtures.mock(.tls, certificateAuth: true)
        let client = try Fixtures.client(
            for: mock,
            credentials: .certificate(
                certificateFile: Fixtures.path("fixtures/tls/client.crt"), privateKeyFile: Fixtures.path("fixtures/tls/client.key"),
                passphrase: nil))
        defer { client.shutdown() }
        let outcome = await client.send(Fixtures.notification(5))
        #expect(outcome.isDelivered, "\(outcome)")
        #expect(mock.notifications().map(\.token) == [Fixtures.token(5)])

        // Token credentials bring no client certificate: the handshake fails, and says so.
        let anonymous = try Fixtures.client(for: mock)
        defer { anonymous.shutdown() }
        let refused = await anonymous.send(Fixtures.notification(6))
        guard case .failed(let error) = refused else {
            Issue.record("expected a TLS failure, got \(refused)")
            try await mock.shutdown()
            return
        }
        #expect(error.kind == .tls || error.kind == .connectionLost, "\(error)")
        try await mock.shutdown()
    }

    @Test func aPKCS12CertificateWorksToo() async throws {
        let mock = try await Fixtures.mock(.tls, certificateAuth: true)
        let client = try Fixtures.client(
            for: mock,
            credentials: .certificate(
                certificateFile: Fixtures.path("fixtures/tls/client.p12"), privateKeyFile: nil, passphrase: ""))
        defer { client.shutdown() }
        let outcome = await client.send(Fixtures.notification(8))
        #expect(outcome.isDelivered, "\(outcome)")
        try await mock.shutdown()
    }

    @Test func anUntrustedServerCertificateIsATLSFailure() async throws {
        let mock = try await Fixtures.mock(.tls)
        // The server's own certificate is not a CA: verification fails.
        let client = try Fixtures.client(for: mock, caFile: Fixtures.path("fixtures/tls/client.crt"))
        defer { client.shutdown() }
        let outcome = await client.send(Fixtures.notification(7))
        guard case .failed(let error) = outcome else {
            Issue.record("expected a TLS failure, got \(outcome)")
            try await mock.shutdown()
            return
        }
        #expect(error.kind == .tls)
        #expect(APNsRetryPolicy().decide(outcome, attempt: 1) == .abort("TLS handshake with APNs failed: \(error.message)"))
        try await mock.shutdown()
    }
}
