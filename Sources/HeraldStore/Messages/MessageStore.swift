import HeraldCore

/// Published messages and their fan-out progress. Every write is durable when it returns, so an
/// accepted message and each checkpoint survive `kill -9`.
///
/// A dispatcher owns a message while it holds its lease (`owner`, until a time); every progress write
/// names the owner and does nothing once the lease is someone else's.
public protocol MessageStore: Sendable {
    func insert(_ message: StoredMessage, now: Timestamp) async throws

    func message(app: String, id: String) async throws -> StoredMessage?

    /// Cancels a scheduled or running message. False when it is unknown, finished or cancelled already.
    func cancel(app: String, id: String, now: Timestamp) async throws -> Bool

    /// Whether any message is due at `now` and not leased by a live owner (a cheap read before `claim`).
    func hasDue(now: Timestamp) async throws -> Bool

    /// Takes up to `limit` due messages for `owner` until `leaseUntil`: scheduled ones whose time has
    /// come, and running ones whose owner's lease ran out. Pending counts left by a dead owner are reset.
    func claim(owner: String, now: Timestamp, leaseUntil: Timestamp, limit: Int) async throws -> [StoredMessage]

    /// Records progress of the current occurrence in one transaction: counts (deltas), the cursor, token
    /// hygiene, and a renewed lease. Returns the message's status afterwards, or nil when the lease is lost.
    func checkpoint(_ checkpoint: FanOutCheckpoint, owner: String, now: Timestamp, leaseUntil: Timestamp) async throws -> MessageStatus?

    /// Ends the current occurrence (after a last checkpoint): schedules the next one, or finishes the
    /// message as published or failed. A cancel that came in meanwhile stays. Releases the lease.
    func finishOccurrence(id: String, owner: String, next: Timestamp?, failure: String?, now: Timestamp) async throws

    /// Gives up `owner`'s leases (graceful shutdown) so another start resumes the messages at once.
    func release(owner: String, now: Timestamp) async throws

    /// Gives up every lease: for a backend that only one server uses (SQLite), at start-up.
    func releaseAll(now: Timestamp) async throws
}

/// Progress of one message since its last checkpoint.
public struct FanOutCheckpoint: Sendable, Equatable {
    public var messageId: String
    /// Every recipient with a key up to this one is done (nil: unchanged).
    public var cursor: Int64?
    public var sent: Int64
    public var failed: Int64
    /// The new pending count (not a delta).
    public var pending: Int64
    /// Devices whose token APNs reported unregistered (410).
    public var remove: [TokenRemoval]
    /// Devices whose token APNs refused.
    public var deactivate: [TokenDeactivation]

    public init(messageId: String, cursor: Int64?, sent: Int64 = 0, failed: Int64 = 0, pending: Int64,
                remove: [TokenRemoval] = [], deactivate: [TokenDeactivation] = []) {
        self.messageId = messageId
        self.cursor = cursor
        self.sent = sent
        self.failed = failed
        self.pending = pending
        self.remove = remove
        self.deactivate = deactivate
    }
}

/// Remove a device whose token APNs says is gone, unless it registered again since.
public struct TokenRemoval: Sendable, Equatable {
    public var deviceKey: Int64
    /// The token that was sent: a device that has a new token since is kept.
    public var deviceToken: String
    /// APNs's timestamp (epoch ms); the device stays if it was seen after it. nil: APNs gave none.
    public var invalidSince: Timestamp?

    public init(deviceKey: Int64, deviceToken: String, invalidSince: Timestamp?) {
        self.deviceKey = deviceKey
        self.deviceToken = deviceToken
        self.invalidSince = invalidSince
    }
}

/// Deactivate a device whose token APNs refused, unless its token changed since.
public struct TokenDeactivation: Sendable, Equatable {
    public var deviceKey: Int64
    public var deviceToken: String

    public init(deviceKey: Int64, deviceToken: String) {
        self.deviceKey = deviceKey
        self.deviceToken = deviceToken
    }
}
