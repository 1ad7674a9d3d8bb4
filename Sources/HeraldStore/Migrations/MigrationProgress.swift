/// What a migration run reports while it works, for a command to show (`herald migrate` draws it on a
/// terminal or writes a line a step to a log). The server passes none: it logs each applied migration
/// (info when upgrading a database); a run that shows its progress logs them at debug only, so that a
/// step is not printed twice.
///
/// Events come from the task that migrates, in order; a step may be reported `started` again when its
/// transaction is retried (a PostgreSQL serialization failure), its rows counted again from zero.
public struct MigrationProgress: Sendable {
    /// A backfill's rows done so far, of the rows it counted before its first batch (nil: not counted).
    public struct Rows: Sendable, Equatable {
        public var done: Int
        public var total: Int?

        public init(done: Int, total: Int?) {
            self.done = done
            self.total = total
        }
    }

    public enum Event: Sendable, Equatable {
        /// A pending migration began, in its transaction (another instance had not applied it meanwhile).
        case started(step: String)
        /// A backfill finished a batch.
        case advanced(step: String, rows: Rows)
        /// The migration committed, `duration` after it began; `rows` when it had a backfill.
        case finished(step: String, rows: Rows?, duration: Duration)
    }

    let report: @Sendable (Event) -> Void
    /// Nobody shows the progress: the migrator's log is the only word of each step.
    let isSilent: Bool

    public init(_ report: @escaping @Sendable (Event) -> Void) {
        self.report = report
        isSilent = false
    }

    private init() {
        report = { _ in }
        isSilent = true
    }

    /// Reports nothing.
    public static let silent = MigrationProgress()
}
