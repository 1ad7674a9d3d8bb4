import HeraldCore
import Testing

@testable import HeraldAPNs

@Suite struct InFlightLimitTests {
    @Test func waitersGoOnOnceEnoughSlotsAreFreeAndNoneIsStranded() async throws {
        let limit = InFlightLimit(16)  // wakes waiters once 2 slots are free
        for _ in 0..<16 { await limit.acquire() }
        let resumed = Counter()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<3 {
                group.addTask {
                    await limit.acquire()
                    resumed.add()
                }
            }
            try await Task.sleep(for: .milliseconds(50))
            #expect(resumed.value == 0)
            // Two free slots wake two waiters at once, not one per release.
            limit.release()
            limit.release()
            // Waits for the wake-ups rather than a fixed time, so a loaded machine cannot fail it.
            let deadline = ContinuousClock.now + .seconds(5)
            while resumed.value < 2, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
            #expect(resumed.value == 2)
            // One more free slot is below the batch: the third waits for a second one.
            limit.release()
            try await Task.sleep(for: .milliseconds(50))
            #expect(resumed.value == 2)
            limit.release()
            try await group.waitForAll()
        }
        #expect(resumed.value == 3)
    }

    @Test func openLetsEveryWaiterAndLaterAcquireThrough() async throws {
        let limit = InFlightLimit(1)
        await limit.acquire()
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await limit.acquire() }
            try await Task.sleep(for: .milliseconds(20))
            limit.open()
            try await group.waitForAll()
        }
        await limit.acquire()  // would hang if the limit still held
    }
}

final class Counter: Sendable {
    private let count = Locked(0)
    func add() { count.withLock { $0 += 1 } }
    var value: Int { count.withLock { $0 } }
}
