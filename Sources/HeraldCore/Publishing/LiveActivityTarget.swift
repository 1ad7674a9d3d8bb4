/// Which Live Activity tokens a message goes to instead of its devices' own tokens: the push-to-start
/// tokens of an attributes type (a start), or the update tokens of that type's activities, or of one
/// activity (an update or end). Stored with the message, so a fan-out resumed after a crash pages the same
/// tokens.
public struct LiveActivityTarget: Sendable, Hashable, Codable {
    public var kind: LiveActivityEvent.Kind
    public var attributesType: String
    public var activityId: String?
    /// An update or end to a Herald channel bound to an APNs broadcast channel: one broadcast request to
    /// that channel instead of a push per token.
    public var broadcast: Broadcast?

    /// The APNs broadcast channel an event goes to.
    public struct Broadcast: Sendable, Hashable, Codable {
        public var channelId: String
        public var storagePolicy: Int

        public init(channelId: String, storagePolicy: Int) {
            self.channelId = channelId
            self.storagePolicy = storagePolicy
        }
    }

    public init(kind: LiveActivityEvent.Kind, attributesType: String, activityId: String? = nil, broadcast: Broadcast? = nil) {
        self.kind = kind
        self.attributesType = attributesType
        self.activityId = activityId
        self.broadcast = broadcast
    }

    /// A start goes to push-to-start tokens; an update or end to activities' update tokens.
    public var usesStartTokens: Bool { kind == .start }
}

extension LiveActivityEvent {
    /// The tokens this event goes to.
    public var target: LiveActivityTarget {
        LiveActivityTarget(kind: kind, attributesType: attributesType, activityId: activityId)
    }
}

/// Apple's lifetime rules for an activity: it runs at most 8 hours, and stays on the Lock Screen at most
/// 4 hours after it ends (or until its dismissal date, if sooner). Past that its token is of no use.
public enum LiveActivityLifetime {
    public static let runningMilliseconds: Int64 = 8 * 3_600_000
    public static let shownAfterEndMilliseconds: Int64 = 4 * 3_600_000

    /// When a token of an activity that started at `startedAt` stops being of use: 12 hours after the
    /// start while it runs; once ended, 4 hours after the end or at the dismissal date, whichever is
    /// sooner, and never past the 12 hours.
    public static func expiry(startedAt: Timestamp, endedAt: Timestamp?, dismissal: Timestamp? = nil) -> Timestamp {
        let latest = startedAt.adding(milliseconds: runningMilliseconds + shownAfterEndMilliseconds)
        guard let endedAt else { return latest }
        var shown = endedAt.adding(milliseconds: shownAfterEndMilliseconds)
        if let dismissal { shown = max(endedAt, min(shown, dismissal)) }
        return min(latest, shown)
    }
}
