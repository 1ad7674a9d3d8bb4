/// The figures of a progress line, written the same way by every command: counts grouped by thousands,
/// durations in the unit a person reads them in.
public enum ProgressFormat {
    /// 1234567 → "1,234,567" (the same whatever the locale, as a log is read anywhere).
    public static func count(_ value: Int) -> String {
        let digits = String(value.magnitude)
        var grouped = ""
        for (index, digit) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0 { grouped.append(",") }
            grouped.append(digit)
        }
        return value < 0 ? "-" + grouped : grouped
    }

    /// "0.4 s" under 10 s, "41 s" under a minute, "2 min 05 s" under an hour, then "1 h 02 min".
    public static func duration(_ duration: Duration) -> String {
        let seconds = max(0, Self.seconds(duration))
        if seconds < 9.95 {
            let tenths = Int((seconds * 10).rounded())
            return "\(tenths / 10).\(tenths % 10) s"
        }
        let whole = Int(seconds.rounded())
        if whole < 60 { return "\(whole) s" }
        if whole < 3600 { return "\(whole / 60) min \(twoDigits(whole % 60)) s" }
        return "\(whole / 3600) h \(twoDigits(whole % 3600 / 60)) min"
    }

    /// "12,000 of 1,234,567 rows", or "12,000 rows" when the total is not known.
    public static func amount(_ done: Int, of total: Int?, _ unit: String) -> String {
        total.map { "\(count(done)) of \(count($0)) \(unit)" } ?? "\(count(done)) \(unit)"
    }

    /// Whole percent of `done` in `total` (100 for an empty total).
    public static func percent(_ done: Int, of total: Int) -> Int {
        total <= 0 ? 100 : min(100, done * 100 / total)
    }

    /// "45,210/s": `done` over `elapsed`; nil before any time has passed.
    public static func rate(_ done: Int, in elapsed: Duration) -> String? {
        let seconds = Self.seconds(elapsed)
        guard seconds > 0 else { return nil }
        return "\(count(Int((Double(done) / seconds).rounded())))/s"
    }

    /// The time left at the rate so far ("19 s"); nil until something is done.
    public static func remaining(_ done: Int, of total: Int, in elapsed: Duration) -> String? {
        guard done > 0 else { return nil }
        return duration(elapsed * (Double(max(0, total - done)) / Double(done)))
    }

    static func seconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) + Double(attoseconds) / 1e18
    }

    private static func twoDigits(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
}
