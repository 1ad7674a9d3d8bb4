import HeraldCore
import HeraldStore

/// How far a fan-out is and how fast it goes, as its progress bar and the line beside it show it: sent and
/// failed out of the devices targeted (never past 100 %), the rate now and the time left. Decides only;
/// the pages and the progress streams feed it counts, a target and a rate.
struct FanOutPace: Equatable {
    /// Sent and failed so far.
    var done: Int64
    /// The devices targeted (nil: not counted yet); at least `done` plus the sends in flight.
    var targeted: Int64?
    /// Whether `targeted` is an estimate (shown with "≈").
    var estimated: Bool
    /// Sends and failures per second lately (nil: not measured yet).
    var rate: Double?
    var status: MessageStatus

    /// The counted recipients of a message, with whether the count was exact.
    struct Target: Equatable, Sendable {
        var count: Int64
        var exact: Bool
    }

    init(counts: DeliveryCounts, status: MessageStatus, target: Target?, rate: Double?) {
        done = counts.sent + counts.failed
        self.status = status
        self.rate = rate
        switch status {
        case .published:
            // Every recipient had its answer: what was done is what was targeted.
            targeted = done + counts.pending
            estimated = false
        default:
            let floor = done + counts.pending
            if let target {
                targeted = max(target.count, floor)
                // A count below what was already handed out was taken after devices went (tokens removed).
                estimated = !target.exact || target.count < floor
            } else {
                targeted = nil
                estimated = true
            }
        }
    }

    var finished: Bool { [.published, .failed, .cancelled].contains(status) }

    /// Done over targeted, from 0 to 1 (a published message is 1, whatever it counted).
    var fraction: Double {
        if status == .published { return 1 }
        guard let targeted, targeted > 0 else { return 0 }
        return min(1, Double(done) / Double(targeted))
    }

    /// The bar's `value` and `max`: whole numbers, value never above max.
    var bar: (value: Int64, max: Int64) {
        if status == .published { return (max(done, 1), max(done, 1)) }
        guard let targeted, targeted > 0 else { return (0, 1) }
        return (min(done, targeted), targeted)
    }

    /// Seconds until done at the current rate (nil: not running, no rate or no target).
    var secondsLeft: Double? {
        guard status == .running, let targeted, let rate, rate > 0 else { return nil }
        return Double(max(0, targeted - done)) / rate
    }

    var percent: String { "\(Int((fraction * 100).rounded(.down))) %" }

    /// The line beside the bar: "41,200 of ≈100,000 · 8,900/s · 7 s left".
    var text: String {
        let of = targeted.map { " of \(estimated ? "≈" : "")\($0.grouped)" } ?? " so far"
        switch status {
        case .scheduled:
            return done == 0 ? "not started yet" : "\(done.grouped)\(of) · waiting for the next occurrence"
        case .published: return "\(done.grouped) of \(done.grouped) · done"
        case .cancelled: return "\(done.grouped)\(of) · cancelled"
        case .failed: return "\(done.grouped)\(of) · failed"
        case .running:
            var parts = ["\(done.grouped)\(of)"]
            if let rate { parts.append("\(Self.rateText(rate))/s") } else { parts.append("measuring the rate") }
            if let secondsLeft { parts.append("\(Self.duration(secondsLeft)) left") }
            return parts.joined(separator: " · ")
        }
    }

    /// A rate as a page shows it: whole numbers from 10 up (grouped), one decimal below.
    static func rateText(_ rate: Double) -> String {
        if rate >= 10 { return Int64(rate.rounded()).grouped }
        let tenths = Int64((rate * 10).rounded())
        return tenths % 10 == 0 ? "\(tenths / 10)" : "\(tenths / 10).\(tenths % 10)"
    }

    /// A duration in words: "7 s", "3 min", "2 h 5 min".
    static func duration(_ seconds: Double) -> String {
        let whole = Int64(seconds.rounded(.up))
        if whole < 90 { return "\(max(1, whole)) s" }
        let minutes = (whole + 30) / 60
        if minutes < 90 { return "\(minutes) min" }
        return "\(minutes / 60) h \(minutes % 60) min"
    }
}

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
