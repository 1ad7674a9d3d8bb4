import Foundation

/// How the demo writes numbers and times, and how its lines reach the terminal.
enum DemoFormat {
    /// 10000 → "10,000": the counts are large enough that grouping helps, and no locale is involved.
    static func count<N: BinaryInteger>(_ value: N) -> String {
        let digits = String(value.magnitude)
        var grouped = ""
        for (index, digit) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { grouped.append(",") }
            grouped.append(digit)
        }
        return value < 0 ? "-" + grouped : grouped
    }

    /// "1 TLS connection", "2 TLS connections": a count and its noun, plural unless the count is one.
    static func count<N: BinaryInteger>(_ value: N, _ noun: String) -> String {
        "\(count(value)) \(noun)\(value == 1 ? "" : "s")"
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    static func seconds(_ duration: Duration, digits: Int) -> String {
        String(format: "%.\(digits)f s", seconds(duration))
    }

    /// `count` per second over `duration`, rounded to a whole number.
    static func rate<N: BinaryInteger>(_ count: N, over duration: Duration) -> String {
        let seconds = seconds(duration)
        return seconds > 0 ? self.count(Int((Double(count) / seconds).rounded())) : "-"
    }

    /// Right-aligns `text` in `width` columns.
    static func right(_ text: String, _ width: Int) -> String {
        String(repeating: " ", count: max(0, width - text.count)) + text
    }

    static func left(_ text: String, _ width: Int) -> String {
        text + String(repeating: " ", count: max(0, width - text.count))
    }

    /// Writes a line straight to stdout (no stdio buffer), so progress shows as it happens even in a pipe.
    static func say(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }
}
