import HeraldCore
import HeraldStore
import Testing

@testable import Herald

/// What a fan-out's progress bar and its line say, from counts, a target and a rate: never past 100 %, "≈"
/// for an estimate, the rate and the time left while it runs, a finished message's final share.
@Suite struct FanOutPaceTests {
    static func counts(sent: Int64, failed: Int64 = 0, pending: Int64 = 0) -> DeliveryCounts {
        DeliveryCounts(sent: sent, failed: failed, pending: pending)
    }

    @Test func aRunningFanOutSaysHowFarHowFastAndHowLong() {
        let pace = FanOutPace(
            counts: Self.counts(sent: 40_000, failed: 1_200, pending: 800), status: .running,
            target: FanOutPace.Target(count: 100_000, exact: false), rate: 8_900)
        #expect(pace.text == "41,200 of ≈100,000 · 8,900/s · 7 s left")
        #expect(pace.bar == (41_200, 100_000))
        #expect(pace.percent == "41 %")
        let exact = FanOutPace(
            counts: Self.counts(sent: 10), status: .running, target: FanOutPace.Target(count: 40, exact: true), rate: 0.5)
        #expect(exact.text == "10 of 40 · 0.5/s · 60 s left")
        let unmeasured = FanOutPace(
            counts: Self.counts(sent: 0), status: .running, target: FanOutPace.Target(count: 8, exact: true), rate: nil)
        #expect(unmeasured.text == "0 of 8 · measuring the rate")
        let uncounted = FanOutPace(counts: Self.counts(sent: 5), status: .running, target: nil, rate: 2)
        #expect(uncounted.text == "5 so far · 2/s" && uncounted.bar == (0, 1))
    }

    @Test func neverPastOneHundredPercent() {
        // Counted after tokens were removed: fewer than were already handed out, so it is an estimate.
        let pace = FanOutPace(
            counts: Self.counts(sent: 90, failed: 10, pending: 20), status: .running, target: FanOutPace.Target(count: 100, exact: true),
            rate: 10)
        #expect(pace.targeted == 120 && pace.estimated)
        #expect(pace.fraction <= 1 && pace.bar.value <= pace.bar.max)
        #expect(pace.text == "100 of ≈120 · 10/s · 2 s left")
    }

    @Test func aFinishedMessageShowsItsShare() {
        let published = FanOutPace(counts: Self.counts(sent: 7, failed: 1), status: .published, target: nil, rate: 100)
        #expect(published.fraction == 1 && published.bar == (8, 8) && published.text == "8 of 8 · done")
        let cancelled = FanOutPace(
            counts: Self.counts(sent: 300), status: .cancelled, target: FanOutPace.Target(count: 1_000, exact: true), rate: 50)
        #expect(cancelled.percent == "30 %" && cancelled.text == "300 of 1,000 · cancelled" && cancelled.secondsLeft == nil)
        let nothing = FanOutPace(counts: Self.counts(sent: 0), status: .published, target: nil, rate: nil)
        #expect(nothing.fraction == 1 && nothing.bar == (1, 1), "a message with no recipient is done, not 0 %")
        let waiting = FanOutPace(counts: Self.counts(sent: 0), status: .scheduled, target: nil, rate: nil)
        #expect(waiting.text == "not started yet" && waiting.fraction == 0)
    }

    @Test func durationsAndRatesInWords() {
        #expect(FanOutPace.duration(0.2) == "1 s" && FanOutPace.duration(89) == "89 s" && FanOutPace.duration(600) == "10 min")
        #expect(FanOutPace.duration(3 * 3600 + 300) == "3 h 5 min")
        #expect(FanOutPace.rateText(8_912.4) == "8,912" && FanOutPace.rateText(2) == "2" && FanOutPace.rateText(0.25) == "0.3")
    }

    @Test func theRateIsMeasuredOverTheLastSeconds() {
        var window = RateWindow(seed: 50)
        window.add(at: 0, done: 0)
        window.add(at: 1, done: 100)
        #expect(window.rate == 50, "under two seconds of samples: the seed")
        window.add(at: 2, done: 400)
        #expect(window.rate == 200)
        window.add(at: 20, done: 1_000)
        window.add(at: 25, done: 1_500)
        #expect(window.rate == 100, "only the last ten seconds count")
    }

    @Test func theRateFromSendsPerSecond() {
        let now = Timestamp(milliseconds: 100_000)
        let seconds = (80...99).map { MessageSecond(at: Timestamp(milliseconds: Int64($0) * 1000), sent: 90, failed: 10) }
        #expect(RateWindow.rate(seconds, now: now) == 100)
        let young = [MessageSecond(at: Timestamp(milliseconds: 98_000), sent: 300, failed: 0)]
        #expect(RateWindow.rate(young, now: now) == 150, "two seconds old: over two seconds")
        #expect(RateWindow.rate([], now: now) == nil)
        let stalled = [MessageSecond(at: Timestamp(milliseconds: 50_000), sent: 300, failed: 0)]
        #expect(RateWindow.rate(stalled, now: now) == 0)
    }
}
