import HeraldCore

/// What the fan-outs of one app did through one push service in one minute or hour: the delivery
/// statistics the console charts and `GET …/admin/stats` answers.
public struct DeliveryTally: Sendable, Equatable {
    public var sent: Int64
    /// Not delivered, by class (a class with none may be missing).
    public var failed: [FailureClass: Int64]
    /// Tokens removed because their service said they are gone.
    public var tokensRemoved: Int64

    public init(sent: Int64 = 0, failed: [FailureClass: Int64] = [:], tokensRemoved: Int64 = 0) {
        self.sent = sent
        self.failed = failed.filter { $0.value != 0 }
        self.tokensRemoved = tokensRemoved
    }

    public var failedTotal: Int64 { failed.values.reduce(0, +) }
    public var isZero: Bool { sent == 0 && failed.isEmpty && tokensRemoved == 0 }

    public static func + (lhs: DeliveryTally, rhs: DeliveryTally) -> DeliveryTally {
        DeliveryTally(
            sent: lhs.sent + rhs.sent, failed: lhs.failed.merging(rhs.failed, uniquingKeysWith: +),
            tokensRemoved: lhs.tokensRemoved + rhs.tokensRemoved)
    }
}

/// One bucket of the series: its start, the service, and what it counted.
public struct DeliveryStatsPoint: Sendable, Equatable {
    public var at: Timestamp
    public var provider: PushProvider
    public var tally: DeliveryTally

    public init(at: Timestamp, provider: PushProvider, tally: DeliveryTally) {
        self.at = at
        self.provider = provider
        self.tally = tally
    }
}

/// The width of a bucket of the delivery statistics.
public enum StatsStep: String, Sendable, CaseIterable {
    case minute
    case hour

    public var milliseconds: Int64 {
        switch self {
        case .minute: 60_000
        case .hour: 3_600_000
        }
    }

    /// The start of the bucket `time` falls in.
    public func bucket(_ time: Timestamp) -> Timestamp {
        let width = milliseconds
        let rest = time.milliseconds % width
        return Timestamp(milliseconds: time.milliseconds - (rest < 0 ? rest + width : rest))
    }
}

/// What one roll-up of the statistics did (the sweeper's report).
public struct StatsRollUp: Sendable, Equatable {
    /// Minute rows folded into their hours.
    public var minutesRolledUp: Int
    /// Hour rows deleted past their retention.
    public var hoursPruned: Int

    public init(minutesRolledUp: Int = 0, hoursPruned: Int = 0) {
        self.minutesRolledUp = minutesRolledUp
        self.hoursPruned = hoursPruned
    }
}

/// One second of one fan-out (the console's sparkline).
public struct MessageSecond: Sendable, Equatable {
    public var at: Timestamp
    public var sent: Int64
    public var failed: Int64

    public init(at: Timestamp, sent: Int64, failed: Int64) {
        self.at = at
        self.sent = sent
        self.failed = failed
    }
}
