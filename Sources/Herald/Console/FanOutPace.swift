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
