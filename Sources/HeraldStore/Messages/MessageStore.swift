import HeraldCore

/// Published messages and their fan-out progress. Every write is durable when it returns, so an
/// accepted message and each checkpoint survive `kill -9`.
///
/// Each occurrence of a message is sent in slices: when it comes due, the first claimer splits its
/// recipients by device-key range into up to `Slicing.maxSlices` slices, and every slice is then a unit
/// that any instance may claim, with its own cursor, counts and lease. A dispatcher owns a slice while it
/// holds the slice's lease (`owner`, until a time); every progress write names the owner and does nothing
/// once the lease is someone else's. The message's counts are its finished occurrences' plus its slices'.
///
/// Time that decides leases and due messages is the store's `StoreClock`: on PostgreSQL the database's
/// clock, so instances whose clocks disagree still agree on whose lease has run out.
public protocol MessageStore: Sendable {
    /// Stores a message. With `idempotency`, its key is taken in the same transaction (so the key exists iff
    /// the message does): a key that a record not yet expired holds throws `IdempotencyKeyTaken`, and
    /// nothing is written.
    func insert(_ message: StoredMessage, now: Timestamp, idempotency: IdempotencyRecord?) async throws

    /// `insert` of a message due now and, in the same transaction, what the next claim would do for it: its
    /// occurrence started (its slices written) and its first slice leased to `owner`, returned for that
    /// dispatcher to send at once, with no claim's round trips between the publish and its first send. The
    /// other slices of a large message are left for any instance's claims. `idempotency` as for `insert`.
    func insertClaimed(
        _ message: StoredMessage, now: Timestamp, owner: String, leaseMilliseconds: Int64, slicing: Slicing,
        idempotency: IdempotencyRecord?
    ) async throws -> ClaimedSlice

    /// The app's record of a publish `key` that is not expired at `now` (see `IdempotencyKey.lifetimeMilliseconds`).
    func idempotencyRecord(app: String, key: String, now: Timestamp) async throws -> IdempotencyRecord?

    /// Deletes idempotency records expired at `now`, of every app or (`app` set) of one, `batchSize` per
    /// transaction. Returns how many it deleted.
    func pruneIdempotencyKeys(now: Timestamp, batchSize: Int, app: String?) async throws -> Int

    /// The message with its counts summed over finished occurrences and the slices of the current one.
    func message(app: String, id: String) async throws -> StoredMessage?

    /// A page of the app's messages that match `filter`, newest first, after `cursor` (nil: the newest).
    func messages(app: String, filter: MessageFilter, after cursor: MessageCursor?, limit: Int) async throws -> MessageListing

    /// The message's failed sends grouped by outcome and reason, most first (at most `limit` groups), from the
    /// delivery history: empty when the history is off or was pruned.
    func failureReasons(app: String, id: String, limit: Int) async throws -> [FailureReason]

    /// The commonest failure of each of `ids` that has one in the delivery history (a page of the
    /// listing: one query for all of them).
    func commonestFailures(app: String, ids: [String]) async throws -> [String: FailureReason]

    /// How many of the app's messages accepted since `since` are in each state.
    func statusCounts(app: String, since: Timestamp) async throws -> [MessageStatus: Int64]

    /// Deletes finished messages (published, failed, cancelled) that finished before `cutoff`, of every
    /// app or (`app` set) of one, `batchSize` per transaction. Returns how many it deleted.
    func pruneFinished(before cutoff: Timestamp, batchSize: Int, app: String?) async throws -> Int

    /// The app's delivery statistics from `from` to `to` (excluded) in buckets of `step`, per push service;
    /// buckets with nothing are left out. Minutes exist for `stats.minuteHours` back, hours after that.
    func deliveryStats(app: String, from: Timestamp, to: Timestamp, step: StatsStep) async throws -> [DeliveryStatsPoint]

    /// Folds minutes of the statistics older than `minutesBefore` into their hours (whole hours only) and
    /// deletes hours older than `hoursBefore` (the sweeper's job).
    func rollUpDeliveryStats(minutesBefore: Timestamp, hoursBefore: Timestamp) async throws -> StatsRollUp

    /// The message's sends and failures per second, as its checkpoints recorded them (nil app or id: none).
    func sendsPerSecond(app: String, messageId: String) async throws -> [MessageSecond]

    /// Cancels a scheduled or running message. False when it is unknown, finished or cancelled already.
    func cancel(app: String, id: String, now: Timestamp) async throws -> Bool

    /// Whether a claim may find work: a due occurrence to start, or a slice with no live lease.
    func hasDue(now: Timestamp) async throws -> Bool

    /// Starts the occurrences that are due (splitting their recipients into slices) and takes up to
    /// `limit` slices for `owner` for `leaseMilliseconds`: at most one slice per message per call, and a
    /// slice of a message in `running` (which this owner already sends) only once it has waited
    /// `slicing.graceMilliseconds` for another instance to take it. Pending counts of a dead owner are reset.
    /// With `foldingAbandoned`, slices that a dead or stopped owner left of a cancelled or failed message
    /// are first folded into it (its counts made final); a claim on the way from a publish to its first send
    /// leaves that to the next one, a round trip fewer.
    func claim(
        owner: String, now: Timestamp, leaseMilliseconds: Int64, limit: Int, slicing: Slicing,
        running: Set<String>, foldingAbandoned: Bool
    ) async throws -> [ClaimedSlice]

    /// Records progress of one slice in one transaction: counts (deltas), the cursor, token hygiene, and a
    /// renewed lease. Returns the message's status afterwards, or nil when the lease is lost. A checkpoint
    /// with a `sequence` that the store has already recorded (written again because the answer to its
    /// first write was lost) is recognised: nothing is added twice, and the status is returned.
    func checkpoint(_ checkpoint: FanOutCheckpoint, owner: String, now: Timestamp, leaseMilliseconds: Int64) async throws -> MessageStatus?

    /// Ends `owner`'s slice (after a last checkpoint). The last slice of an occurrence ends the
    /// occurrence: the next one is scheduled at `next`, or the message is published. A `failure` fails
    /// the message at once (the other slices stop at their next checkpoint). A cancel that came in stays.
    /// Returns the final status this call gave the message (published or failed), nil when it gave none.
    @discardableResult
    func finishSlice(
        id: String, slice: Int, occurrence: Int64, owner: String, next: Timestamp?, failure: String?,
        now: Timestamp
    ) async throws -> MessageStatus?

    /// Gives up `owner`'s leases (graceful shutdown) so another instance resumes the slices at once.
    func release(owner: String, now: Timestamp) async throws

    /// Gives up every lease: for a backend that only one server uses (SQLite), at start-up.
    func releaseAll(now: Timestamp) async throws
}

extension MessageStore {
    /// Stores a message published without an idempotency key.
    public func insert(_ message: StoredMessage, now: Timestamp) async throws {
        try await insert(message, now: now, idempotency: nil)
    }

    /// `insertClaimed` of a message published without an idempotency key.
    public func insertClaimed(
        _ message: StoredMessage, now: Timestamp, owner: String, leaseMilliseconds: Int64, slicing: Slicing
    ) async throws -> ClaimedSlice {
        try await insertClaimed(
            message, now: now, owner: owner, leaseMilliseconds: leaseMilliseconds, slicing: slicing, idempotency: nil)
    }
}

/// How an occurrence's recipients are split into slices.
public struct Slicing: Sendable, Equatable {
    /// The most slices of one occurrence (1: never split).
    public var maxSlices: Int
    /// Recipients per slice at least: a smaller channel is one slice.
    public var sliceSize: Int
    /// How long a new slice is left for other instances before an owner that already sends a slice of
    /// the same message takes it too.
    public var graceMilliseconds: Int64

    public init(maxSlices: Int = 1, sliceSize: Int = 10_000, graceMilliseconds: Int64 = 1000) {
        self.maxSlices = max(1, maxSlices)
        self.sliceSize = max(1, sliceSize)
        self.graceMilliseconds = max(0, graceMilliseconds)
    }
}

/// A slice an owner has claimed: the message, and which recipients are this slice's.
public struct ClaimedSlice: Sendable, Equatable {
    public var message: StoredMessage
    public var slice: Int
    /// Every recipient with a key up to this one is done (the slice's checkpoint).
    public var cursor: Int64
    /// The slice's last key (inclusive); nil: no end.
    public var upTo: Int64?
    /// Checkpoints the slice has recorded so far: the `sequence` of this claim's first checkpoint.
    public var sequence: Int64
    /// The occurrence the slice belongs to (the message's finished occurrences when it started).
    public var occurrence: Int64 { message.occurrences }

    public init(message: StoredMessage, slice: Int, cursor: Int64, upTo: Int64?, sequence: Int64 = 0) {
        self.message = message
        self.slice = slice
        self.cursor = cursor
        self.upTo = upTo
        self.sequence = sequence
    }
}

/// Progress of one message since its last checkpoint.
public struct FanOutCheckpoint: Sendable, Equatable {
    public var messageId: String
    /// Which slice of the message's current occurrence.
    public var slice: Int
    /// Which occurrence (see `ClaimedSlice.occurrence`): a checkpoint for another one is refused.
    public var occurrence: Int64
    /// The slice's checkpoints recorded before this one; nil: not checked (a caller that writes once).
    public var sequence: Int64?
    /// Every recipient with a key up to this one is done (nil: unchanged).
    public var cursor: Int64?
    public var sent: Int64
    public var failed: Int64
    /// `sent` and `failed` by the provider that sent them (the store counts the tokens it removed and
    /// deactivated itself, by the provider of each device's system).
    public var byProvider: [PushProvider: ProviderCounts]
    /// The failures of `byProvider` by class, for the delivery statistics (a failure without a class is
    /// counted as `other`).
    public var failures: [PushProvider: [FailureClass: Int64]]
    /// The new pending count (not a delta).
    public var pending: Int64
    /// Devices whose token their service reported gone.
    public var remove: [TokenRemoval]
    /// Devices whose token their service refused.
    public var deactivate: [TokenDeactivation]
    /// How each send of the closed pages ended, for the devices' delivery history (empty when it is off).
    public var deliveries: [DeliveryRecord]

    public init(
        messageId: String, slice: Int = 0, occurrence: Int64 = 0, sequence: Int64? = nil, cursor: Int64?, sent: Int64 = 0,
        failed: Int64 = 0, byProvider: [PushProvider: ProviderCounts] = [:], failures: [PushProvider: [FailureClass: Int64]] = [:],
        pending: Int64, remove: [TokenRemoval] = [], deactivate: [TokenDeactivation] = [], deliveries: [DeliveryRecord] = []
    ) {
        self.failures = failures
        self.messageId = messageId
        self.slice = slice
        self.occurrence = occurrence
        self.sequence = sequence
        self.cursor = cursor
        self.sent = sent
        self.failed = failed
        self.byProvider = byProvider
        self.pending = pending
        self.remove = remove
        self.deactivate = deactivate
        self.deliveries = deliveries
    }
}

/// The final outcome of one notification to one device, as its delivery history keeps it.
public struct DeliveryRecord: Sendable, Equatable {
    public enum Outcome: String, Sendable, Equatable {
        case sent
        case failed
        case tokenRemoved
        case tokenDeactivated
    }

    /// Whose history it goes into: the device's row key (which files it, `RetiredDeviceKeys`) and its id.
    public struct Device: Sendable, Equatable {
        public var key: Int64
        public var id: String

        public init(key: Int64, id: String) {
            self.key = key
            self.id = id
        }
    }

    public var device: Device
    public var outcome: Outcome
    /// The service's reason for a refusal (as the service names it) or why the send gave up.
    public var reason: String?

    public init(device: Device, outcome: Outcome, reason: String? = nil) {
        self.device = device
        self.outcome = outcome
        self.reason = reason
    }
}

/// Remove a device whose token its push service says is gone, unless it registered again since.
public struct TokenRemoval: Sendable, Equatable {
    public var deviceKey: Int64
    /// The token that was sent: a device that has a new token since is kept.
    public var deviceToken: String
    /// The service's timestamp (epoch ms); the device stays if it was seen after it. nil: it gave none.
    public var invalidSince: Timestamp?
    /// The service's reason, for the app's webhook event.
    public var reason: String?
    /// The service that said so, for the counts by provider.
    public var provider: PushProvider
    /// The token is one of the device's Live Activity tokens (push-to-start or an activity's): that token
    /// goes, not the device.
    public var liveActivity: Bool

    public init(
        deviceKey: Int64, deviceToken: String, invalidSince: Timestamp?, reason: String? = nil, provider: PushProvider,
        liveActivity: Bool = false
    ) {
        self.deviceKey = deviceKey
        self.deviceToken = deviceToken
        self.invalidSince = invalidSince
        self.reason = reason
        self.provider = provider
        self.liveActivity = liveActivity
    }
}

/// Deactivate a device whose token its push service refused, unless its token changed since.
public struct TokenDeactivation: Sendable, Equatable {
    public var deviceKey: Int64
    public var deviceToken: String
    /// The service's reason, for the app's webhook event.
    public var reason: String?
    /// The service that refused it: the device's `deactivatedBy`, and the counts by provider.
    public var provider: PushProvider

    public init(deviceKey: Int64, deviceToken: String, reason: String? = nil, provider: PushProvider) {
        self.deviceKey = deviceKey
        self.deviceToken = deviceToken
        self.reason = reason
        self.provider = provider
    }
}

/// Sends of one message that did not succeed, with one outcome and reason (`MessageStore.failureReasons`).
public struct FailureReason: Sendable, Equatable {
    public var outcome: DeliveryRecord.Outcome
    public var reason: String?
    public var count: Int64

    public init(outcome: DeliveryRecord.Outcome, reason: String?, count: Int64) {
        self.outcome = outcome
        self.reason = reason
        self.count = count
    }
}
