/// How the dispatcher runs messages. The defaults suit production; tests shorten the delays.
public struct DispatcherConfiguration: Sendable, Equatable {
    /// Recipients read per page, and so per checkpoint.
    public var pageSize: Int
    /// Pages sent but not yet checkpointed, at most. With `pageSize` this bounds what a crash sends twice.
    public var maxOpenPages: Int
    /// Messages one Herald sends at the same time.
    public var maxConcurrentMessages: Int
    /// How often the dispatcher looks for due messages besides being woken by a publish.
    public var pollIntervalSeconds: Double
    /// How long a claimed message stays this instance's without a checkpoint.
    public var leaseSeconds: Double
    /// On a shared database (PostgreSQL), the most slices one occurrence's recipients are split into, so
    /// several instances send it together. SQLite has one server: a message is always one slice there.
    public var maxSlices: Int
    /// Recipients per slice at least: a message smaller than this is one slice.
    public var sliceSize: Int
    /// Whether each notification's final outcome goes into its device's delivery history
    /// (`history.enabled`); written with the page's checkpoint, never one by one.
    public var recordHistory: Bool = true

    public init(
        pageSize: Int = 500, maxOpenPages: Int = 8, maxConcurrentMessages: Int = 4,
        pollIntervalSeconds: Double = 0.25, leaseSeconds: Double = 30,
        maxSlices: Int = 8, sliceSize: Int = 10_000
    ) {
        self.maxSlices = max(1, maxSlices)
        self.sliceSize = max(1, sliceSize)
        self.pageSize = max(1, pageSize)
        self.maxOpenPages = max(1, maxOpenPages)
        self.maxConcurrentMessages = max(1, maxConcurrentMessages)
        self.pollIntervalSeconds = pollIntervalSeconds
        self.leaseSeconds = leaseSeconds
    }
}
