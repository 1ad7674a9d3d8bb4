import HeraldCore
import HeraldStore

/// The rate of a fan-out measured from samples of its count (a progress stream's), over the last
/// `window` seconds, once they span `least` seconds; before that, a rate given at the start (from the
/// message's sends per second).
struct RateWindow: Equatable {
    var window: Double = 10
    var least: Double = 2
    var seed: Double?
    private(set) var samples: [(at: Double, done: Int64)] = []

    init(seed: Double? = nil) { self.seed = seed }

    static func == (lhs: RateWindow, rhs: RateWindow) -> Bool {
        lhs.seed == rhs.seed && lhs.samples.map(\.at) == rhs.samples.map(\.at) && lhs.samples.map(\.done) == rhs.samples.map(\.done)
    }

    /// Records `done` at `at` (seconds on any clock that only goes forward).
    mutating func add(at: Double, done: Int64) {
        samples.append((at, done))
        samples.removeAll { $0.at < at - window }
    }

    var rate: Double? {
        guard let first = samples.first, let last = samples.last, last.at - first.at >= least else { return seed }
        return Double(max(0, last.done - first.done)) / (last.at - first.at)
    }

    /// The rate from a message's sends per second: those of the last `window` seconds before `now`, over
    /// that span (or since its first second, if it began later); nil before its first send.
    static func rate(_ seconds: [MessageSecond], now: Timestamp, window: Double = 10) -> Double? {
        guard let first = seconds.first else { return nil }
        let start = now.milliseconds - Int64(window * 1000)
        let recent = seconds.filter { $0.at.milliseconds >= start }.reduce(Int64(0)) { $0 + $1.sent + $1.failed }
        let span = min(window, max(1, Double(now.milliseconds - first.at.milliseconds) / 1000))
        return Double(recent) / span
    }
}
