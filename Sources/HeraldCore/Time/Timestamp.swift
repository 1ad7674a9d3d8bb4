/// A point in time as epoch milliseconds: what the store keeps and what Backendless clients send.
public struct Timestamp: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    public var milliseconds: Int64

    public init(milliseconds: Int64) { self.milliseconds = milliseconds }

    public static func < (lhs: Timestamp, rhs: Timestamp) -> Bool { lhs.milliseconds < rhs.milliseconds }

    public func adding(milliseconds delta: Int64) -> Timestamp { Timestamp(milliseconds: milliseconds + delta) }

    public var description: String { "\(milliseconds)ms" }
}
