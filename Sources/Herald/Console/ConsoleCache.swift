import HeraldCore

/// What a console page counts with a pass over many rows (devices by platform, channels' registrations),
/// kept per key for `ttl` on this instance, so a page opened again or refreshed reads it instead of
/// counting again; with the time it was counted, which the page shows. Bounded: past `limit` keys it
/// forgets everything at once.
final class ConsoleCache<Value: Sendable>: Sendable {
    private let entries = Locked<[String: (at: ContinuousClock.Instant, value: Value, counted: Timestamp)]>([:])
    let ttl: Duration
    let limit: Int

    init(ttl: Duration = .seconds(60), limit: Int = 10_000) {
        self.ttl = ttl
        self.limit = limit
    }

    /// The value for `key` counted less than `ttl` ago, or `count`'s (then kept), with when it was counted.
    func value(_ key: String, now: Timestamp, _ count: () async throws -> Value) async throws -> (value: Value, counted: Timestamp) {
        let instant = ContinuousClock.now
        if let cached = entries.withLock({ $0[key] }), instant - cached.at < ttl { return (cached.value, cached.counted) }
        let value = try await count()
        entries.withLock { entries in
            if entries.count >= limit { entries.removeAll() }
            entries[key] = (instant, value, now)
        }
        return (value, now)
    }

    /// The value kept for `key` while it is fresh, without counting (nil: none, or too old).
    func cached(_ key: String) -> (value: Value, counted: Timestamp)? {
        guard let cached = entries.withLock({ $0[key] }), ContinuousClock.now - cached.at < ttl else { return nil }
        return (cached.value, cached.counted)
    }

    /// Forgets `key` (after a change the page made itself, such as deleting a channel).
    func forget(_ key: String) { _ = entries.withLock { $0.removeValue(forKey: key) } }

    /// Forgets every key that starts with `prefix`.
    func forget(prefix: String) { entries.withLock { $0 = $0.filter { !$0.key.hasPrefix(prefix) } } }
}
