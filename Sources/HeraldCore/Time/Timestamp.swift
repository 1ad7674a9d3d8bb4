/// A point in time as epoch milliseconds: what the store keeps and what Backendless clients send.
public struct Timestamp: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    public var milliseconds: Int64

    public init(milliseconds: Int64) { self.milliseconds = milliseconds }

    public static func < (lhs: Timestamp, rhs: Timestamp) -> Bool { lhs.milliseconds < rhs.milliseconds }

    /// `delta` later (earlier when negative), saturating at the ends of Int64 rather than trapping: a
    /// time a client sent can be anything its type holds, and time arithmetic on it must not crash.
    public func adding(milliseconds delta: Int64) -> Timestamp {
        let (sum, overflow) = milliseconds.addingReportingOverflow(delta)
        return Timestamp(milliseconds: overflow ? (delta > 0 ? .max : .min) : sum)
    }

    /// Whole seconds as milliseconds, saturating like `adding`.
    public static func milliseconds(seconds: Int64) -> Int64 {
        let (product, overflow) = seconds.multipliedReportingOverflow(by: 1000)
        return overflow ? (seconds > 0 ? .max : .min) : product
    }

    public var description: String { "\(milliseconds)ms" }
}
