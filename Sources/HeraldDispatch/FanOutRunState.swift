import HeraldCore
import HeraldStore

extension FanOut {
    /// What one run of a slice knows while it sends: its progress, the retries waiting, why it stops, and
    /// the checkpoints not yet written. The producer, the consumer and the checkpoint writer share it
    /// (`SharedRunState`), each holding the lock only to read or change it.
    struct RunState {
        var progress: FanOutProgress
        /// Sends waiting to go again, with the class of the answer that made them wait (what they count as
        /// if the run ends before they are sent).
        var retries: [(due: ContinuousClock.Instant, send: Send, failure: FailureClass)] = []
        var abort: String?
        var halt: Ending?
        var error: (any Error)?
        /// Checkpoints taken but not yet written (a write failed): written first, in order, by the next
        /// write, so a later cursor never skips their pages' counts.
        var unwritten: [FanOutCheckpoint] = []
        /// The pages each unwritten checkpoint closed. Until its write commits they are still what a
        /// crash would send again, so they count against `maxOpenPages` with the open ones: the bound on
        /// re-sends (`maxOpenPages × pageSize`) holds while a checkpoint is being written too.
        var unwrittenPages: [Int] = []
        /// The sequence number of the next checkpoint taken (see `FanOutCheckpoint.sequence`).
        var nextSequence: Int64
        var lastFailure: String?
    }
}

extension FanOut {
    /// The run's state behind a lock, shared by the producer, the consumer and the checkpoint writer.
    final class SharedRunState: Sendable {
        private let mutex: Locked<RunState>
        init(_ state: sending RunState) { mutex = Locked(state) }
        func withLock<T>(_ body: (inout sending RunState) throws -> sending T) rethrows -> sending T { try mutex.withLock(body) }
    }
}

/// A store write failed mid-fan-out; the message resumes from its last checkpoint when the lease expires.
struct StoreFailure: Error, CustomStringConvertible {
    let underlying: any Error
    var description: String { "store write failed: \(underlying)" }
}
