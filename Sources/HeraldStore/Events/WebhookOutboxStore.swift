import HeraldCore

/// The outbox of events waiting for their app's webhook to acknowledge them. An event is claimed for a
/// while (so two instances do not post it at once), then acknowledged (deleted) or put back with a time
/// for its next attempt. An event whose claim ran out (its instance died) is claimable again: a receiver
/// may get an event more than once and should treat its `id` as the key.
public protocol WebhookOutboxStore: Sendable {
    /// Up to `limit` due events, oldest first, claimed by `owner` for `leaseMilliseconds`.
    func claimEvents(owner: String, now: Timestamp, leaseMilliseconds: Int64, limit: Int) async throws -> [OutboxEvent]

    /// The receiver acknowledged it: it is gone from the outbox.
    func acknowledge(_ id: Int64, owner: String) async throws

    /// Not acknowledged: attempt again `delayMilliseconds` after `now` (the store's clock), remembering why
    /// this one failed.
    func retry(_ id: Int64, owner: String, now: Timestamp, delayMilliseconds: Int64, error: String) async throws

    /// Events waiting, per app (for the status of the outbox).
    func pendingEvents(app: String) async throws -> Int

    /// The app's events waiting: how many, the oldest, the next attempt, and the last failure (the console).
    func backlog(app: String) async throws -> WebhookBacklog
}

/// An app's webhook events not yet acknowledged (`WebhookOutboxStore.backlog`).
public struct WebhookBacklog: Sendable, Equatable {
    public var pending: Int
    public var oldestCreatedAt: Timestamp?
    public var nextAttemptAt: Timestamp?
    /// The most attempts any waiting event has had.
    public var mostAttempts: Int
    /// The failure of the event retried most (the oldest of those), if any has failed.
    public var lastError: String?

    public init(
        pending: Int = 0, oldestCreatedAt: Timestamp? = nil, nextAttemptAt: Timestamp? = nil, mostAttempts: Int = 0,
        lastError: String? = nil
    ) {
        self.pending = pending
        self.oldestCreatedAt = oldestCreatedAt
        self.nextAttemptAt = nextAttemptAt
        self.mostAttempts = mostAttempts
        self.lastError = lastError
    }
}

/// One claimed event: its body is exactly what is posted (and signed).
public struct OutboxEvent: Sendable, Equatable {
    public var key: Int64
    public var eventId: String
    public var app: String
    public var type: String
    public var payload: String
    /// Attempts before this one.
    public var attempts: Int

    public init(key: Int64, eventId: String, app: String, type: String, payload: String, attempts: Int) {
        self.key = key
        self.eventId = eventId
        self.app = app
        self.type = type
        self.payload = payload
        self.attempts = attempts
    }
}
