import Foundation

extension Duration {
    /// The duration as a floating-point number of seconds, for rates and reports.
    var seconds: Double {
        let parts = components
        return Double(parts.seconds) + Double(parts.attoseconds) / 1e18
    }
}

/// `value` with `digits` decimals.
func format(_ value: Double, _ digits: Int) -> String {
    String(format: "%.\(digits)f", value)
}

/// The median and extremes of a list of samples (the median of an even count is the mean of the middle two).
struct SampleSummary {
    var count: Int
    var median: Double
    var min: Double
    var max: Double

    init(_ samples: [Double]) {
        precondition(!samples.isEmpty, "no samples")
        let sorted = samples.sorted()
        let middle = sorted.count / 2
        count = sorted.count
        median = sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
        min = sorted[0]
        max = sorted[sorted.count - 1]
    }
}
