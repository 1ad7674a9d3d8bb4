import APNsMock
import Foundation
import Herald
import HeraldCore
import HeraldDispatch
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

    @Test func everyMessageFinishesWhenHeartbeatsAreFrequent() async throws {
        // A heartbeat every 50 ms: runs often end while a heartbeat is writing its checkpoint, and the
        // end of a run stops the heartbeat. That must neither lose the checkpoint nor fail the run.
        var settings = PublishHarness.fastSettings
        settings.leaseSeconds = 0.2
        try await PublishHarness.with(settings: settings) { h in
            let devices = 60
            let messages = 30
            try await h.registerDevices(0..<devices)
            h.mock.setFaults(APNsMockFaults(latencyMilliseconds: 20))
            var ids: [String] = []
            for _ in 0..<messages { ids.append(try await h.publish("news", #"{"message": "Hi"}"#)) }
            var unfinished = Set(ids)
            // 30 s: about 2 s here, but the thread sanitizer (CI's second pass) slows it several times over.
            let deadline = ContinuousClock.now + .seconds(30)
            while !unfinished.isEmpty, ContinuousClock.now < deadline {
                for id in unfinished where try await h.status(id).messageStatus == "published" { unfinished.remove(id) }
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(unfinished.isEmpty, "\(unfinished.count) of \(messages) messages never finished")
            for id in ids where !unfinished.contains(id) {
                #expect(try await h.status(id).delivery("sent") == Int64(devices))
            }
            #expect(h.mock.notifications().count == devices * messages)
        }
    }
}
