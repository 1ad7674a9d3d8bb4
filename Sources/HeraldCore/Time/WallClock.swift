import Foundation

/// Where Herald gets "now" from. Injected everywhere expiry is decided, so tests move time instead of sleeping.
public protocol WallClock: Sendable {
    var now: Timestamp { get }
}

/// The real clock.
public struct SystemClock: WallClock {
    public init() {}
    public var now: Timestamp { Timestamp(milliseconds: Int64((Date().timeIntervalSince1970 * 1000).rounded(.down))) }
}

/// A clock that only moves when told to; for tests and benchmarks.
public final class ManualClock: WallClock {
    private let current: Locked<Timestamp>

    public init(_ start: Timestamp = SystemClock().now) { current = Locked(start) }

    public var now: Timestamp { current.withLock { $0 } }

    public func advance(milliseconds: Int64) { current.withLock { $0 = $0.adding(milliseconds: milliseconds) } }

    public func set(_ time: Timestamp) { current.withLock { $0 = time } }
}
