import HeraldCore

/// A publish made with an `Idempotency-Key`, as the store keeps it: which request it was (a hash), the message
/// it stored and what it answered, so that a retry within `IdempotencyKey.lifetimeMilliseconds` gets the same
/// answer and a different request with the key is recognised. Written with its message, in one transaction.
public struct IdempotencyRecord: Sendable, Equatable {
    public var app: String
    public var key: String
    /// SHA-256 (hex) of the request's method, path without the API key, and body.
    public var requestHash: String
    /// The message the publish stored: the one it is written with.
    public var messageId: String
    /// The answer's HTTP status and JSON body, as sent.
    public var status: Int
    public var body: String
    /// When the publish stored it (the publisher's clock); honoured until `lifetimeMilliseconds` later.
    public var createdAt: Timestamp

    public init(app: String, key: String, requestHash: String, messageId: String, status: Int, body: String, createdAt: Timestamp) {
        self.app = app
        self.key = key
        self.requestHash = requestHash
        self.messageId = messageId
        self.status = status
        self.body = body
        self.createdAt = createdAt
    }

    /// Records created at or before this are expired at `now`: neither honoured nor kept.
    public static func expiredAtOrBefore(_ now: Timestamp) -> Timestamp {
        now.adding(milliseconds: -IdempotencyKey.lifetimeMilliseconds)
    }
}

/// The publish's key is held by a record that is not expired (another request with it committed first,
/// perhaps a moment ago): nothing of the publish was written. The caller reads that record and answers by it.
public struct IdempotencyKeyTaken: Error, CustomStringConvertible {
    public var description: String { "the idempotency key is taken" }
    public init() {}
}
