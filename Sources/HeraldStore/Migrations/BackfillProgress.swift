import Synchronization

/// How a migration's backfill says how far it has got: the rows it counted before starting (when a
/// COUNT is cheap beside the work), then the rows done after each batch. Made afresh for each attempt
/// at the migration's transaction.
final class BackfillProgress: Sendable {
    private let step: String
    private let progress: MigrationProgress
    private let counts = Mutex(MigrationProgress.Rows(done: 0, total: nil))

    init(step: String, progress: MigrationProgress) {
        self.step = step
        self.progress = progress
    }

    /// The rows to do, counted before the first batch.
    func expect(_ total: Int) {
        report { $0.total = total }
    }

    /// `rows` more done (a batch committed to the transaction).
    func advance(by rows: Int) {
        report { $0.done += rows }
    }

    var rows: MigrationProgress.Rows { counts.withLock { $0 } }

    private func report(_ change: (inout MigrationProgress.Rows) -> Void) {
        let rows = counts.withLock { counts in
            change(&counts)
            return counts
        }
        progress.report(.advanced(step: step, rows: rows))
    }
}
