import APNsMock
import Foundation
import HeraldCore
import Testing

/// The dispatcher's lease against the wall clock: when the clock passes a running message's lease
/// between two checkpoints (a clock step, a stalled write), the message is still sent once.
@Suite struct DispatchLeaseTests {
    @Test func aClockJumpPastTheLeaseDuringAFanOutSendsNothingTwice() async throws {
        try await PublishHarness.with { h in
            let count = 400
            try await h.registerDevices(0..<count)
            // Slow answers: after a checkpoint, the next one is half a second away, and the clock jumps in between.
            h.mock.setFaults(APNsMockFaults(latencyMilliseconds: 500))
            let id = try await h.publish("news", #"{"message": "Hi"}"#)
            try await h.waitFor(id, "running") { ($0.delivery("pending") ?? 0) > 0 }
            h.clock.advance(milliseconds: Int64(PublishHarness.fastSettings.leaseSeconds * 1000) + 1_000)
            let status = try await h.waitFor(id, status: "published")
            try await h.expectNoMoreRequests(than: count, for: .milliseconds(300))
            #expect(status.occurrences == 1)
            #expect(status.delivery("sent") == Int64(count))
            #expect(status.delivery("targeted") == Int64(count))
            let received = h.mock.notifications()
            #expect(received.count == count)
            #expect(Set(received.map(\.token)) == Set((0..<count).map(PublishHarness.token)))
        }
    }
}
