/// A value axis with round ticks: 0 and steps of 1, 2, 2.5 (from 25 up) or 5 times a power of ten, the last tick at or above
/// the largest value, so bars are read against numbers such as 0, 500, 1,000, 1,500.
public struct NiceScale: Sendable, Equatable {
    /// The ticks from 0 up, evenly spaced; the last one is the top of the axis.
    public let ticks: [Double]

    /// The axis for values from 0 to `value`, with about `tickCount` steps (counts: never a step below 1).
    public init(covering value: Double, tickCount: Int = 4) {
        guard value > 0, value.isFinite else {
            ticks = [0, 1]
            return
        }
        let raw = value / Double(max(1, tickCount))
        var magnitude = 1.0
        while magnitude * 10 <= raw { magnitude *= 10 }
        while magnitude > raw && magnitude > 1 { magnitude /= 10 }
        let residual = raw / magnitude
        let nice: Double =
            residual <= 1 ? 1 : residual <= 2 ? 2 : residual <= 2.5 && magnitude >= 10 ? 2.5 : residual <= 5 ? 5 : 10
        let step = max(1, nice * magnitude)
        let count = Int((value / step).rounded(.up))
        ticks = (0...max(1, count)).map { Double($0) * step }
    }

    /// The top of the axis.
    public var maximum: Double { ticks.last ?? 1 }

    /// How far up the axis `value` lies, from 0 (bottom) to 1 (top).
    public func fraction(_ value: Double) -> Double { maximum > 0 ? min(1, max(0, value / maximum)) : 0 }

    /// A tick's label, short: 900, 1.5k, 20k, 2.5M.
    public static func label(_ value: Double) -> String {
        func short(_ number: Double, _ suffix: String) -> String {
            let tenths = (number * 10).rounded()
            return
                (tenths.truncatingRemainder(dividingBy: 10) == 0 ? "\(Int64(tenths / 10))" : "\(Int64(tenths) / 10).\(Int64(tenths) % 10)")
                + suffix
        }
        if value >= 1_000_000 { return short(value / 1_000_000, "M") }
        if value >= 1000 { return short(value / 1000, "k") }
        return "\(Int64(value.rounded()))"
    }
}
