import DequeModule
import HeraldCore
import HeraldStore

/// The bookkeeping of one fan-out, without I/O: which pages are open, how each send ended, and what a
/// checkpoint may record.
///
/// Recipients come in pages ordered by device key. A page is done when every send in it has a final
/// result; the checkpoint cursor only moves over a run of done pages from the oldest open one, so after a
/// crash everything past the cursor is sent again and nothing before it is. What is sent twice is
/// therefore bounded by the open pages (`openPages × page size`), which the fan-out caps.
struct FanOutProgress {
    /// How one send ended for good.
    enum Result: Equatable {
        case sent
        /// Not delivered, for this reason (what the delivery statistics count it as).
        case failed(FailureClass)
        case removed(TokenRemoval)
        case deactivated(TokenDeactivation)

        /// What a result other than `sent` counts as in the delivery statistics.
        var failureClass: FailureClass {
            switch self {
            case .sent: .other
            case .failed(let failure): failure
            case .removed, .deactivated: .invalidToken
            }
        }

        /// The history's name for it.
        var outcome: DeliveryRecord.Outcome {
            switch self {
            case .sent: .sent
            case .failed: .failed
            case .removed: .tokenRemoved
            case .deactivated: .tokenDeactivated
            }
        }
    }

    struct Page {
        let number: Int
        let lastKey: Int64
        var outstanding: Int
        var sent: Int64 = 0
        var failed: Int64 = 0
        /// `sent` and `failed` by the provider that sent them.
        var byProvider: [PushProvider: ProviderCounts] = [:]
        /// The failures in `byProvider` by class.
        var failures: [PushProvider: [FailureClass: Int64]] = [:]
        var remove: [TokenRemoval] = []
        var deactivate: [TokenDeactivation] = []
        var deliveries: [DeliveryRecord] = []
    }

    let messageId: String
    /// The slice of the message's occurrence this fan-out sends, and which occurrence.
    let slice: Int
    let occurrence: Int64
    private var pages: Deque<Page> = []
    private var nextPage = 0
    /// Sends without a final result yet (in flight or waiting to retry).
    private(set) var unanswered: Int64 = 0
    /// Whether anything changed since the last checkpoint (pending included).
    private var dirty = false

    init(messageId: String, slice: Int = 0, occurrence: Int64 = 0) {
        self.messageId = messageId
        self.slice = slice
        self.occurrence = occurrence
    }

    var openPages: Int { pages.count }
    var isComplete: Bool { pages.isEmpty }
    /// Whether the oldest open page has every result, so a checkpoint would move the cursor.
    var frontPageDone: Bool { pages.first.map { $0.outstanding == 0 } ?? false }

    /// Opens a page of `count` sends ending at `lastKey`; returns its number for the sends' tags.
    mutating func addPage(lastKey: Int64, count: Int) -> Int {
        precondition(count > 0, "an empty page is the end of the recipients, not a page")
        let number = nextPage
        nextPage += 1
        pages.append(Page(number: number, lastKey: lastKey, outstanding: count))
        unanswered += Int64(count)
        dirty = true
        return number
    }

    /// Records the final result of one send of page `number` through `provider` (for the counts by
    /// provider; nil: no provider serves the device, which counts in the totals only); with `device`, also
    /// for its delivery history (written with the page's checkpoint), with the service's `reason` when
    /// there is one.
    mutating func record(
        page number: Int, _ result: Result, provider: PushProvider?, device: DeliveryRecord.Device? = nil, reason: String? = nil
    ) {
        guard let first = pages.first, number >= first.number, number - first.number < pages.count else {
            preconditionFailure("result for page \(number), which is not open")
        }
        let index = number - first.number
        precondition(pages[index].outstanding > 0, "more results than sends in page \(number)")
        pages[index].outstanding -= 1
        unanswered -= 1
        dirty = true
        if let device { pages[index].deliveries.append(DeliveryRecord(device: device, outcome: result.outcome, reason: reason)) }
        if let provider {
            if result == .sent {
                pages[index].byProvider[provider, default: ProviderCounts()].sent += 1
            } else {
                pages[index].byProvider[provider, default: ProviderCounts()].failed += 1
                pages[index].failures[provider, default: [:]][result.failureClass, default: 0] += 1
            }
        }
        switch result {
        case .sent: pages[index].sent += 1
        case .failed: pages[index].failed += 1
        case .removed(let removal):
            pages[index].failed += 1
            pages[index].remove.append(removal)
        case .deactivated(let deactivation):
            pages[index].failed += 1
            pages[index].deactivate.append(deactivation)
        }
    }

    /// Closes the run of done pages at the front and returns what to write: nil unless a page closed,
    /// or, with `force` (a lease renewal), always. Counts of pages still open are not included: they are
    /// written when their page closes, so after a crash a re-sent page is never counted twice; until then
    /// they are `pending`.
    mutating func takeCheckpoint(force: Bool = false) -> FanOutCheckpoint? {
        guard force || (dirty && frontPageDone) else { return nil }
        dirty = false
        var checkpoint = FanOutCheckpoint(messageId: messageId, slice: slice, occurrence: occurrence, cursor: nil, pending: 0)
        while let page = pages.first, page.outstanding == 0 {
            pages.removeFirst()
            checkpoint.cursor = page.lastKey
            checkpoint.sent += page.sent
            checkpoint.failed += page.failed
            checkpoint.byProvider.merge(page.byProvider, uniquingKeysWith: +)
            checkpoint.failures.merge(page.failures) { $0.merging($1, uniquingKeysWith: +) }
            checkpoint.remove += page.remove
            checkpoint.deactivate += page.deactivate
            checkpoint.deliveries += page.deliveries
        }
        checkpoint.pending = pages.reduce(0) { $0 + Int64($1.outstanding + Int($1.sent + $1.failed)) }
        return checkpoint
    }
}
