/// When a message goes out: now, once at `publishAt`, or every `repeatEvery` seconds from then
/// until `repeatExpiresAt`.
public struct PublishSchedule: Sendable, Hashable, Codable {
    /// The first occurrence (epoch ms); nil means immediately.
    public var publishAt: Timestamp?
    /// Seconds between occurrences (at least 60); nil means once.
    public var repeatEverySeconds: Int64?
    /// No occurrence after this (epoch ms); nil with a repeat means until cancelled.
    public var repeatExpiresAt: Timestamp?

    public init(publishAt: Timestamp? = nil, repeatEverySeconds: Int64? = nil, repeatExpiresAt: Timestamp? = nil) {
        self.publishAt = publishAt
        self.repeatEverySeconds = repeatEverySeconds
        self.repeatExpiresAt = repeatExpiresAt
    }

    /// The shortest repeat Backendless allows.
    public static let minimumRepeatSeconds: Int64 = 60
    /// The longest repeat: a leap year.
    public static let maximumRepeatSeconds: Int64 = 366 * 24 * 3600
    /// How far ahead `publishAt` and `repeatExpiresAt` may be: ten years (of 366 days). A schedule further
    /// ahead is a mistake (seconds sent as milliseconds' worth of digits, a sentinel value), not a plan.
    public static let maximumHorizonMilliseconds: Int64 = 10 * 366 * 24 * 3600 * 1000

    /// The occurrence after `occurrence`, or nil when the schedule is over.
    public func occurrence(after occurrence: Timestamp) -> Timestamp? {
        guard let every = repeatEverySeconds else { return nil }
        let next = occurrence.adding(milliseconds: Timestamp.milliseconds(seconds: every))
        if let end = repeatExpiresAt, next > end { return nil }
        return next
    }

    /// Reads and checks `publishAt`, `repeatEvery` and `repeatExpiresAt` against `now`.
    static func parse(_ body: [String: JSONValue], now: Timestamp) throws(HeraldFault) -> PublishSchedule {
        let horizon = now.adding(milliseconds: maximumHorizonMilliseconds)
        let publishAt = try milliseconds(body["publishAt"], "publishAt")
        if let publishAt, publishAt <= now {
            throw .invalidPublishDate("'publishAt' must be in the future (epoch milliseconds)")
        }
        if let publishAt, publishAt > horizon {
            throw .invalidParameter("publishAt", "at most ten years ahead (\(horizon.milliseconds) now), got \(publishAt.milliseconds)")
        }
        var every: Int64?
        switch body["repeatEvery"] {
        case nil, .null: every = nil
        case .integer(let seconds):
            guard seconds >= minimumRepeatSeconds, seconds <= maximumRepeatSeconds else {
                throw .invalidParameter(
                    "repeatEvery", "seconds between \(minimumRepeatSeconds) and \(maximumRepeatSeconds), got \(seconds)")
            }
            every = seconds
        case let other?: throw .invalidParameter("repeatEvery", "expected whole seconds, got \(other.typeName)")
        }
        let expiresAt = try milliseconds(body["repeatExpiresAt"], "repeatExpiresAt")
        if let expiresAt {
            guard every != nil else { throw .invalidParameter("repeatExpiresAt", "only meaningful with 'repeatEvery'") }
            if expiresAt < (publishAt ?? now) {
                throw .invalidPublishDate("'repeatExpiresAt' is before the first occurrence")
            }
            if expiresAt > horizon {
                throw .invalidParameter(
                    "repeatExpiresAt", "at most ten years ahead (\(horizon.milliseconds) now), got \(expiresAt.milliseconds)")
            }
        }
        return PublishSchedule(publishAt: publishAt, repeatEverySeconds: every, repeatExpiresAt: expiresAt)
    }

    private static func milliseconds(_ value: JSONValue?, _ name: String) throws(HeraldFault) -> Timestamp? {
        switch value {
        case nil, .null: return nil
        case .integer(let ms) where ms > 0: return Timestamp(milliseconds: ms)
        case .integer: throw .invalidPublishDate("'\(name)' must be a positive epoch time in milliseconds")
        case let other?: throw .invalidParameter(name, "expected epoch milliseconds, got \(other.typeName)")
        }
    }
}
