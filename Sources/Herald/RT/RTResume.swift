import HeraldCore

/// Where each RT message subscription got to, by app, client id and subscription id, so that the SDK's
/// resubscription after a reconnect (same `clientId`, same subscription ids) goes on from the last
/// message it was sent: nothing twice, and nothing published meanwhile lost while it is in the feed
/// (`pubsub.retentionSeconds`). A subscription still live on a connection the server has not yet seen
/// die is handed over from it. Kept in this process's memory: a client that reconnects to another
/// instance starts from the feed's end there.
final class RTResume: Sendable {
    struct Key: Hashable {
        let app: String
        let clientId: String
        let subscription: String
    }

    private enum Entry {
        /// Live on a connection: `handover` stops it there and tells where it got to.
        case live(owner: String, channel: ChannelName, handover: @Sendable () -> Int64?)
        /// Its connection ended; it may be taken up until `until` (epoch ms).
        case parked(channel: ChannelName, position: Int64, until: Int64)
    }

    private let entries = Locked([Key: Entry]())
    /// Parks since expired entries were last pruned.
    private let parks = Locked(0)
    /// Expired entries are pruned every this many parks (so a connection churn does not pile them up).
    static let pruneEvery = 1000
    /// Parked entries kept at most (the oldest go first past it).
    static let limit = 100_000

    /// Where a subscription of `channel` under `key` should start: where its earlier life got to, or nil
    /// for the feed's end.
    func claim(_ key: Key, channel: ChannelName, owner: String, now: Int64) -> Int64? {
        let entry = entries.withLock { $0.removeValue(forKey: key) }
        switch entry {
        case .parked(let parkedChannel, let position, let until)? where parkedChannel == channel && until > now:
            return position
        case .live(let other, let liveChannel, let handover)? where other != owner && liveChannel == channel:
            return handover()
        default:
            return nil
        }
    }

    /// The subscription is live on `owner`.
    func live(_ key: Key, channel: ChannelName, owner: String, handover: @escaping @Sendable () -> Int64?) {
        entries.withLock { $0[key] = .live(owner: owner, channel: channel, handover: handover) }
    }

    /// Its connection ended: it may be taken up from `position` until `until`.
    func park(_ key: Key, channel: ChannelName, owner: String, position: Int64, until: Int64) {
        entries.withLock { entries in
            if case .live(let current, _, _)? = entries[key], current != owner { return }
            entries[key] = .parked(channel: channel, position: position, until: until)
            if entries.count > Self.limit { Self.prune(&entries, now: until - 1) }
        }
    }

    /// Drops parked entries past their time, every `pruneEvery` parks (`now` in epoch ms).
    func pruneIfDue(now: Int64) {
        let due = parks.withLock { parks in
            parks += 1
            guard parks >= Self.pruneEvery else { return false }
            parks = 0
            return true
        }
        if due { entries.withLock { Self.prune(&$0, now: now) } }
    }

    /// The client stopped it (`SUB_OFF`): nothing to take up.
    func forget(_ key: Key, owner: String) {
        entries.withLock { entries in
            if case .live(let current, _, _)? = entries[key], current != owner { return }
            entries[key] = nil
        }
    }

    var count: Int { entries.withLock { $0.count } }

    private static func prune(_ entries: inout [Key: Entry], now: Int64) {
        entries = entries.filter { _, entry in
            if case .parked(_, _, let until) = entry { return until > now }
            return true
        }
        guard entries.count > limit else { return }
        let parked = entries.compactMap { key, entry -> (Key, Int64)? in
            if case .parked(_, _, let until) = entry { return (key, until) }
            return nil
        }.sorted { $0.1 < $1.1 }
        for (key, _) in parked.prefix(entries.count - limit) { entries[key] = nil }
    }
}
