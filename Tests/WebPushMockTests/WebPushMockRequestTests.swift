import Foundation
import HeraldCurl
import HeraldTestSupport
import Testing
import WebPushMock

/// RFC 8030's headers and the body's encoding, size and encryption, as a push service refuses them.
@Suite struct WebPushMockRequestTests {
    static func errno(_ response: CurlTransfer.Response) -> Int? { json(response)["errno"] as? Int }

    @Test func anotherPathOrMethodIs404() async throws {
        let harness = try await WebPushMockHarness.start()
        let other = try await harness.push(path: "/v1/push/alice")
        #expect(other.status == 404 && Self.errno(other) == 102 && other.headers["content-type"] == "application/json")
        #expect(try await harness.push(path: "/push/").status == 404)
        #expect(try await harness.push(path: "/push/a.b").status == 404)
        let get = CurlTransfer(
            method: "GET", url: harness.mock.endpoint(id: "alice"), timeoutMilliseconds: 5_000, caFile: FixtureFiles.caFile,
            ignoreProxies: true)
        #expect(try await get.perform().get().status == 404)
        #expect(harness.mock.stats().byStatus == ["404": 4])
        try await harness.shutdown()
    }

    @Test func theTTLIsRequiredAndANumberOfSeconds() async throws {
        let harness = try await WebPushMockHarness.start()
        let missing = try await harness.push(ttl: nil)
        #expect(missing.status == 400 && Self.errno(missing) == 111 && message(missing).contains("TTL"))
        for bad in ["-1", "1.5", "ten", "99999999999999"] {
            let response = try await harness.push(ttl: bad)
            #expect(response.status == 400 && Self.errno(response) == 112, "\(bad)")
        }
        #expect(try await harness.push(ttl: "0").status == 201)
        try await harness.shutdown()
    }

    @Test func urgencyAndTopicMustBeWellFormed() async throws {
        let harness = try await WebPushMockHarness.start()
        let urgency = try await harness.push(urgency: "urgent")
        #expect(urgency.status == 400 && message(urgency).contains("Urgency"))
        for urgency in ["very-low", "low", "normal", "high"] {
            #expect(try await harness.push(urgency: urgency).status == 201)
        }
        let long = try await harness.push(topic: String(repeating: "t", count: 33))
        #expect(long.status == 400 && Self.errno(long) == 113)
        #expect(try await harness.push(topic: "a+b").status == 400)
        #expect(try await harness.push(topic: String(repeating: "t", count: 32)).status == 201)
        try await harness.shutdown()
    }

    @Test func aPayloadMustBeAes128gcmAndAtMost4096Bytes() async throws {
        let harness = try await WebPushMockHarness.start()
        let old = try await harness.push(contentEncoding: "aesgcm")
        #expect(old.status == 400 && Self.errno(old) == 110 && message(old).contains("aes128gcm"))
        let missing = try await harness.push(contentEncoding: nil)
        #expect(missing.status == 400 && Self.errno(missing) == 111)
        let large = try await harness.push(body: Array(repeating: 7, count: 4097))
        #expect(large.status == 413 && Self.errno(large) == 104)
        // The largest plaintext Herald sends in one record makes a body of exactly 4096 bytes.
        let largest = String(repeating: "x", count: 4096 - 103)
        #expect(try await harness.push(largest).status == 201)
        #expect(harness.mock.messages().first?.text == largest)
        try await harness.shutdown()
    }

    @Test func aBodyThatDoesNotOpenIs400AndCounted() async throws {
        let harness = try await WebPushMockHarness.start()
        var tampered = try WebPushMockHarness.body("hello", for: "alice")
        tampered[tampered.count - 1] ^= 0x40
        let altered = try await harness.push(to: "alice", body: tampered)
        #expect(altered.status == 400 && Self.errno(altered) == 110 && message(altered).contains("AES-GCM"))
        let forSomeoneElse = try await harness.push(to: "alice", body: try WebPushMockHarness.body("hello", for: "bob"))
        #expect(forSomeoneElse.status == 400)
        let notLast = try await harness.push(to: "alice", body: try WebPushMockHarness.body("hello", for: "alice", delimiter: 1))
        #expect(notLast.status == 400 && message(notLast).contains("delimiter"))
        #expect(try await harness.push(to: "alice", body: Array(repeating: 1, count: 50)).status == 400)
        let stats = harness.mock.stats()
        #expect(stats.decryptFailures == 4 && stats.byStatus == ["400": 4] && harness.mock.messages().isEmpty)
        try await harness.shutdown()
    }
}
