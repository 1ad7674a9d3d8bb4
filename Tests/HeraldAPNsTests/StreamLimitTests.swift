import APNsMock
import Foundation
import HeraldAPNs
import HeraldCore
import Testing

/// Herald's APNs client against APNs's stream limits (the mock's `streamLimit` fault): one stream on a new
/// connection until a 200, one again after each rejection until the next 200. The client opens one stream
/// per connection until it sees a 2xx and narrows after a 4xx or 5xx, so it should neither have streams
/// refused nor lose connections, and every notification should end once. Answers wait 20 ms, so hundreds of
/// streams are open at once and a limit of one bites: in a trial with the narrowing off, 3,000 such sends had
/// thousands of streams refused, or over a hundred connections closed, and over a thousand sends failed.
@Suite struct StreamLimitTests {
    /// A mock under `limit` whose answers wait 20 ms, with one token in a hundred of `count` answering 410.
    static func limitedMock(_ limit: APNsMockStreamLimit, count: Int) async throws -> (APNsMock, Set<Int>) {
        let mock = try await Fixtures.mock(.tls)
        mock.setFaults(APNsMockFaults(latencyMilliseconds: 20, streamLimit: limit))
        let unregistered = Set(stride(from: 7, to: count, by: 100))
        for index in unregistered { mock.script(token: Fixtures.token(index), .unregistered(timestamp: 1_700_000_000_000)) }
        return (mock, unregistered)
    }

    @Test func refusedStreamsCostNoNotificationAndNoConnection() async throws {
        let count = 5_000
        let (mock, unregistered) = try await Self.limitedMock(.refuse, count: count)
        let client = try Fixtures.client(for: mock, connections: 2, streams: 500)
        defer { client.shutdown() }
        let outcomes = await client.sendAll((0..<count).map { Fixtures.notification($0) })
        let stats = mock.stats()
        let figures = "streamsRefused \(stats.streamsRefused), connectionsOpened \(stats.connectionsOpened): \(stats)"
        #expect(outcomes.count == count, "every notification gets exactly one outcome")
        let delivered = Set(outcomes.filter { $0.value.isDelivered }.keys)
        let rejected = Set(outcomes.filter { $0.value.status == 410 && $0.value.reason == .known(.unregistered) }.keys)
        #expect(delivered.count == count - unregistered.count, "\(figures)")
        #expect(rejected == unregistered, "\(figures)")
        #expect(stats.accepted == count - unregistered.count, "\(figures)")
        let recorded = mock.notifications().map(\.token)
        #expect(recorded.count == delivered.count, "each delivered token recorded once: \(figures)")
        #expect(Set(recorded) == Set(delivered.map(Fixtures.token)))
        #expect(stats.maxConcurrentStreams > 100, "the wide limit was used: \(figures)")
        #expect(stats.connectionsOpened <= 2, "\(figures)")
        #expect(stats.streamsRefused == 0, "\(figures)")
        try await mock.shutdown()
    }

    @Test func aServerThatClosesForExcessStillGetsEveryNotificationOnce() async throws {
        let count = 3_000
        let (mock, unregistered) = try await Self.limitedMock(.close, count: count)
        let client = try Fixtures.client(for: mock, connections: 2, streams: 500)
        defer { client.shutdown() }
        let policy = APNsRetryPolicy(maxAttempts: 10, baseDelay: .milliseconds(1), maxDelay: .milliseconds(5))
        let started = ContinuousClock.now
        var final: [Int: APNsOutcome] = [:]
        var pending = Array(0..<count)
        var failures = 0
        for round in 1...10 where !pending.isEmpty {
            let outcomes = await client.sendAll(pending.map { Fixtures.notification($0) })
            #expect(outcomes.count == pending.count, "every send gets exactly one outcome")
            var next: [Int] = []
            for (slot, index) in pending.enumerated() {
                let outcome = try #require(outcomes[slot])
                guard case .failed = outcome else {
                    final[index] = outcome
                    continue
                }
                failures += 1
                guard case .retry = policy.decide(outcome, attempt: round) else {
                    Issue.record("a \(outcome) must be retryable")
                    continue
                }
                next.append(index)
            }
            pending = next
        }
        let elapsed = ContinuousClock.now - started
        let stats = mock.stats()
        let figures =
            "\(elapsed), connectionsOpened \(stats.connectionsOpened), closedForExcess \(stats.connectionsClosedForExcess), "
            + "sends that failed and were sent again \(failures): \(stats)"
        #expect(pending.isEmpty && final.count == count, "\(figures)")
        let delivered = Set(final.filter { $0.value.isDelivered }.keys)
        #expect(delivered.count == count - unregistered.count, "\(figures)")
        #expect(Set(final.filter { $0.value.status == 410 }.keys) == unregistered)
        let recorded = mock.notifications().map(\.token)
        #expect(recorded.count == delivered.count, "delivered exactly once: \(figures)")
        #expect(Set(recorded) == Set(delivered.map(Fixtures.token)))
        #expect(elapsed < .seconds(30), "\(figures)")
        #expect(stats.maxConcurrentStreams > 100, "the wide limit was used: \(figures)")
        #expect(stats.connectionsOpened <= 2, "\(figures)")
        try await mock.shutdown()
    }
}
