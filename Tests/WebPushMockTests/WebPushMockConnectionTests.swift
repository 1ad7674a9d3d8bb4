import Foundation
import HeraldCurl
import HeraldTestSupport
import Synchronization
import Testing
import WebPushMock

/// Many pushes multiplexed on one HTTP/2 connection, as Herald sends them: the VAPID signature is
/// verified once for the connection, and every payload is opened with its own subscription's keys.
@Suite struct WebPushMockConnectionTests {
    /// Completions gathered from the loop thread.
    final class Collector: Sendable {
        let completions = Mutex<[CurlCompletion]>([])
    }

    @Test func oneConnectionVerifiesVAPIDOnceAndOpensEveryPayload() async throws {
        let harness = try await WebPushMockHarness.start()
        let options = CurlOptions(
            cleartext: false, caFile: FixtureFiles.caFile, connectTimeoutMilliseconds: 5_000, requestTimeoutMilliseconds: 20_000,
            capturedHeaders: ["location"])
        let loop = try CurlMultiLoop(settings: options, connections: 1, streamsPerConnection: 100, name: "webpush-mock-test")
        let authorization = try harness.authorization()
        let count = 200
        let ids = (0..<count).map { "sub-\($0 % 20)" }
        let bodies = try (0..<count).map { try WebPushMockHarness.body("message \($0)", for: ids[$0]) }
        let headers = CurlHeaderList([
            "Authorization: \(authorization)", "TTL: 60", "Content-Encoding: aes128gcm", "Content-Type: application/octet-stream",
        ])
        let collector = Collector()
        let completions = await withCheckedContinuation { (continuation: CheckedContinuation<[CurlCompletion], Never>) in
            for index in 0..<count {
                loop.submit(
                    CurlJob(url: harness.mock.endpoint(id: ids[index]), headers: headers, body: CurlBody(bodies[index])) { completion in
                        let all = collector.completions.withLock { completions -> [CurlCompletion]? in
                            completions.append(completion)
                            return completions.count == count ? completions : nil
                        }
                        if let all { continuation.resume(returning: all) }
                    })
            }
        }
        loop.stop()
        #expect(completions.allSatisfy { $0.code == 0 && $0.status == 201 && $0.headers["location"] != nil })
        let stats = harness.mock.stats()
        #expect(stats.accepted == count && stats.vapidVerifications == 1 && stats.connections.opened == 1)
        let messages = harness.mock.messages()
        #expect(Set(messages.compactMap(\.text)) == Set((0..<count).map { "message \($0)" }))
        #expect(messages.allSatisfy { $0.text.map { text in Int(text.dropFirst(8))! % 20 } == Int($0.subscriptionID.dropFirst(4)) })
        #expect(Set(messages.map(\.location)).count == count)
        try await harness.shutdown()
    }
}
