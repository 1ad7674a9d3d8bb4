import Dispatch
import HeraldCore
import HeraldMetrics
import HeraldStore
import Logging

/// A sweep that waited for the lock did not get it (cannot happen with a blocking lock; reported, not ignored).
struct SweepNotRun: Error, CustomStringConvertible {
    var description: String { "the sweep could not take the sweeper lock" }
}

/// One sweep: deletes expired registrations in batches of `batchSize`, one transaction each,
/// so a large sweep never holds the write lock for long and registrations keep flowing between batches.
///
/// It first lists the expired keys (up to `listLimit` at a time, through the expiry index) and deletes
/// them in key order. Deleting in expiry order instead scatters every batch over the whole table when
/// expirations are unrelated to registration order, which made a 1M-row sweep 4x slower (BENCHMARKS.md).
public struct Sweeper: Sendable {
    /// What one sweep did.
    public struct Report: Sendable, Equatable {
        public var removed: Int
        public var durationMilliseconds: Double
        /// Delivery-history rows pruned (older than the retention, or past a device's cap).
        public var historyPruned: Int = 0
        /// Finished messages deleted past `messages.retentionDays`.
        public var messagesPruned: Int = 0
        /// Channels deleted after `sweeper.emptyChannelDays` without registrations.
        public var channelsRemoved: Int = 0
        /// Live Activities forgotten once Apple no longer shows them (`LiveActivityLifetime`).
        public var liveActivitiesRemoved: Int = 0
        /// Publishes' idempotency keys deleted once expired (24 hours after their publish).
        public var idempotencyKeysRemoved: Int = 0
        /// Delivery statistics: minutes folded into hours and hours deleted (`stats.*`).
        public var stats = StatsRollUp()
    }

    /// How long the delivery statistics keep minutes and hours (`stats.minuteHours`, `stats.hourDays`).
    public struct StatsRetention: Sendable {
        let messages: any MessageStore
        let minuteHours: Int
        let hourDays: Int

        public init(messages: any MessageStore, minuteHours: Int, hourDays: Int) {
            self.messages = messages
            self.minuteHours = minuteHours
            self.hourDays = hourDays
        }
    }

    /// Finished messages the sweep deletes, after `days`.
    public struct MessageRetention: Sendable {
        let messages: any MessageStore
        let days: Int

        public init(messages: any MessageStore, days: Int) {
            self.messages = messages
            self.days = days
        }
    }

    /// What the sweep prunes of the device registry's delivery history.
    public struct HistoryRetention: Sendable {
        let registry: any DeviceRegistryStore
        let days: Int
        let maxPerDevice: Int

        public init(registry: any DeviceRegistryStore, days: Int, maxPerDevice: Int) {
            self.registry = registry
            self.days = days
            self.maxPerDevice = maxPerDevice
        }
    }

    let store: any RegistrationStore
    let clock: any WallClock
    let batchSize: Int
    /// Keys listed per pass: 8 MB of memory at most.
    let listLimit: Int
    let logger: Logger
    let history: HistoryRetention?
    let messageRetention: MessageRetention?
    /// Where publishes' idempotency keys are kept (nil: not swept).
    let idempotencyKeys: (any MessageStore)?
    /// The delivery statistics' roll-up (nil: not rolled up).
    let stats: StatsRetention?
    /// Days an empty channel stays; nil keeps channels.
    let emptyChannelDays: Double?
    let metrics: HeraldMetrics

    public init(
        store: any RegistrationStore, clock: any WallClock, batchSize: Int, listLimit: Int = 1_000_000, history: HistoryRetention? = nil,
        messages: MessageRetention? = nil, idempotencyKeys: (any MessageStore)? = nil, stats: StatsRetention? = nil,
        emptyChannelDays: Double? = nil, metrics: HeraldMetrics = .disabled, logger: Logger
    ) {
        self.stats = stats
        self.idempotencyKeys = idempotencyKeys
        self.metrics = metrics
        self.emptyChannelDays = emptyChannelDays.flatMap { $0 > 0 ? $0 : nil }
        self.history = history
        self.messageRetention = messages
        self.store = store
        self.clock = clock
        self.batchSize = max(1, batchSize)
        self.listLimit = max(1, listLimit)
        self.logger = logger
    }

    /// Sweeps everything that has expired by the clock's `now` at the start of the sweep, as the only
    /// sweep on the database: if another instance (or `herald sweep`) is sweeping, `onWait` is called and
    /// this one waits for it to finish first.
    /// With `app` set, only that app's expired registrations and delivery history (an admin's sweep).
    public func sweep(trigger: String, app: String? = nil, onWait: @Sendable () -> Void = {}) async throws -> Report {
        if let report = try await store.exclusiveSweep(wait: false, { try await sweepNow(trigger: trigger, app: app) }) {
            return report
        }
        onWait()
        logger.info("another sweep is running on this database; waiting for it", metadata: ["herald.sweep.trigger": "\(trigger)"])
        guard let report = try await store.exclusiveSweep(wait: true, { try await sweepNow(trigger: trigger, app: app) }) else {
            throw SweepNotRun()
        }
        return report
    }

    /// The timer's sweep: runs only when no other sweep is running and no instance sharing the database
    /// has swept within most of `intervalSeconds`, so several instances sweep once per interval between
    /// them. nil when it skipped.
    public func sweepIfDue(intervalSeconds: Double) async throws -> Report? {
        let turn = Int64(intervalSeconds * 0.8 * 1000)
        return try await store.exclusiveSweep(wait: false) { () async throws -> Report? in
            guard try await store.takeSweepTurn(intervalMilliseconds: turn, now: clock.now) else { return nil }
            return try await sweepNow(trigger: "timer", app: nil)
        } ?? nil
    }

    private func sweepNow(trigger: String, app: String?) async throws -> Report {
        let start = ContinuousClock.now
        let now = clock.now
        var removed = 0
        while true {
            let keys = try await store.expiredRegistrationKeys(now: now, limit: listLimit, app: app).sorted()
            var removedThisPass = 0
            for start in stride(from: 0, to: keys.count, by: batchSize) {
                let batch = Array(keys[start..<min(start + batchSize, keys.count)])
                removedThisPass += try await store.deleteExpired(batch, now: now)
            }
            removed += removedThisPass
            // A short list was the last one; a pass that removed nothing cannot make progress.
            if keys.count < listLimit || removedThisPass == 0 { break }
        }
        var channelsRemoved = 0
        if let emptyChannelDays {
            channelsRemoved = try await store.removeEmptyChannels(
                emptySince: now.adding(milliseconds: -Int64(emptyChannelDays * 86_400_000)), now: now, batchSize: batchSize, app: app)
        }
        var liveActivitiesRemoved = 0
        while true {
            let deleted = try await store.deleteExpiredActivities(now: now, limit: batchSize, app: app)
            liveActivitiesRemoved += deleted
            if deleted < batchSize { break }
        }
        var pruned = 0
        if let history {
            pruned = try await history.registry.pruneHistory(
                before: now.adding(milliseconds: -Int64(history.days) * 86_400_000), keepPerDevice: history.maxPerDevice,
                batchSize: batchSize, app: app)
        }
        var messagesPruned = 0
        if let messageRetention {
            messagesPruned = try await messageRetention.messages.pruneFinished(
                before: now.adding(milliseconds: -Int64(messageRetention.days) * 86_400_000), batchSize: batchSize, app: app)
        }
        var idempotencyKeysRemoved = 0
        if let idempotencyKeys {
            idempotencyKeysRemoved = try await idempotencyKeys.pruneIdempotencyKeys(now: now, batchSize: batchSize, app: app)
        }
        var stats = StatsRollUp()
        // Every app's statistics at once: an admin's sweep of one app leaves them to the others.
        if let retention = self.stats, app == nil {
            stats = try await retention.messages.rollUpDeliveryStats(
                minutesBefore: now.adding(milliseconds: -Int64(retention.minuteHours) * 3_600_000),
                hoursBefore: now.adding(milliseconds: -Int64(retention.hourDays) * 86_400_000))
        }
        let duration = ContinuousClock.now - start
        metrics.swept(
            trigger: trigger,
            removed: [
                .registrations: removed, .history: pruned, .messages: messagesPruned, .channels: channelsRemoved,
                .liveActivities: liveActivitiesRemoved, .idempotencyKeys: idempotencyKeysRemoved,
                .deliveryStats: stats.minutesRolledUp + stats.hoursPruned,
            ],
            duration: duration)
        let (seconds, attoseconds) = duration.components
        let report = Report(
            removed: removed, durationMilliseconds: Double(seconds) * 1000 + Double(attoseconds) / 1e15, historyPruned: pruned,
            messagesPruned: messagesPruned, channelsRemoved: channelsRemoved, liveActivitiesRemoved: liveActivitiesRemoved,
            idempotencyKeysRemoved: idempotencyKeysRemoved, stats: stats)
        logger.log(
            level: removed > 0 ? .info : .debug, "swept expired registrations",
            metadata: [
                "herald.sweep.trigger": "\(trigger)",
                "herald.sweep.removed": "\(removed)",
                "herald.sweep.historyPruned": "\(pruned)",
                "herald.sweep.messagesPruned": "\(messagesPruned)",
                "herald.sweep.channelsRemoved": "\(channelsRemoved)",
                "herald.sweep.liveActivitiesRemoved": "\(liveActivitiesRemoved)",
                "herald.sweep.idempotencyKeysRemoved": "\(idempotencyKeysRemoved)",
                "herald.sweep.statsMinutesRolledUp": "\(stats.minutesRolledUp)",
                "herald.sweep.statsHoursPruned": "\(stats.hoursPruned)",
                "herald.sweep.durationMs": "\(report.durationMilliseconds)",
            ])
        return report
    }
}
