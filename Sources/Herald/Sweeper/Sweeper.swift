import Dispatch
import HeraldCore
import HeraldStore
import Logging
import Metrics

/// One sweep: deletes expired registrations in batches of `batchSize`, one transaction each,
/// so a large sweep never holds the write lock for long and registrations keep flowing between batches.
public struct Sweeper: Sendable {
    /// What one sweep did.
    public struct Report: Sendable, Equatable {
        public var removed: Int
        public var durationMilliseconds: Double
    }

    let store: any RegistrationStore
    let clock: any WallClock
    let batchSize: Int
    let logger: Logger
    let removedCounter = Counter(label: "herald_sweeper_removed_total")
    let sweepTimer = Metrics.Timer(label: "herald_sweeper_duration")

    public init(store: any RegistrationStore, clock: any WallClock, batchSize: Int, logger: Logger) {
        self.store = store
        self.clock = clock
        self.batchSize = max(1, batchSize)
        self.logger = logger
    }

    /// Sweeps everything that has expired by the clock's `now` at the start of the sweep.
    public func sweep(trigger: String) async throws -> Report {
        let start = DispatchTime.now().uptimeNanoseconds
        let now = clock.now
        var removed = 0
        while true {
            let batch = try await store.sweepExpired(now: now, limit: batchSize)
            removed += batch
            if batch < batchSize { break }
        }
        let nanoseconds = DispatchTime.now().uptimeNanoseconds - start
        removedCounter.increment(by: removed)
        sweepTimer.recordNanoseconds(nanoseconds)
        let report = Report(removed: removed, durationMilliseconds: Double(nanoseconds) / 1_000_000)
        logger.log(level: removed > 0 ? .info : .debug, "swept expired registrations", metadata: [
            "herald.sweep.trigger": "\(trigger)",
            "herald.sweep.removed": "\(removed)",
            "herald.sweep.durationMs": "\(report.durationMilliseconds)",
        ])
        return report
    }
}
