import HeraldCore
import Testing

@testable import HeraldDispatch

/// The fan-out producer's sleep: woken by a signal, a deadline or the stop flag, never lost in between.
@Suite struct WakeSignalTests {
    @Test func aSignalBeforeTheWaitIsKept() async {
        let wake = WakeSignal()
        wake.signal()
        let start = ContinuousClock.now
        await wake.wait(until: nil)
        #expect(ContinuousClock.now - start < .seconds(1))
    }

    @Test func aSignalWakesAWaiter() async {
        let wake = WakeSignal()
        async let waited: Void = wake.wait(until: .now + .seconds(30))
        try? await Task.sleep(for: .milliseconds(50))
        let start = ContinuousClock.now
        wake.signal()
        await waited
        #expect(ContinuousClock.now - start < .seconds(5))
    }

    @Test func theDeadlineEndsTheWait() async {
        let wake = WakeSignal()
        let start = ContinuousClock.now
        await wake.wait(until: .now + .milliseconds(100))
        let waited = ContinuousClock.now - start
        #expect(waited >= .milliseconds(100))
        #expect(waited < .seconds(10))
    }

    @Test func settingTheStopFlagWakesItsObservers() async {
        let wake = WakeSignal()
        let stop = StopFlag()
        let key = stop.observe(wake)
        defer { stop.forget(key) }
        async let waited: Void = wake.wait(until: nil)
        try? await Task.sleep(for: .milliseconds(50))
        stop.set()
        await waited
        #expect(stop.isSet)
    }

    @Test func cancellationEndsTheWait() async {
        let wake = WakeSignal()
        let task = Task { await wake.wait(until: nil) }
        try? await Task.sleep(for: .milliseconds(50))
        task.cancel()
        await task.value
    }
}
