import HeraldCore
import SQLKit

/// One message of a channel's feed, as subscribers receive it.
public struct FeedMessage: Sendable, Equatable {
    /// Its place in the feed: increasing, never reused; a stream's event id.
    public var position: Int64
    public var messageId: String
    public var publisherId: String?
    public let content: PubSubContent
    public var publishedAt: Timestamp
    /// The headers as selectors read them, worked out once for every subscription that looks.
    public let selectorHeaders: [String: String]

    public init(position: Int64, messageId: String, publisherId: String?, content: PubSubContent, publishedAt: Timestamp) {
        self.position = position
        self.messageId = messageId
        self.publisherId = publisherId
        self.content = content
        self.publishedAt = publishedAt
        selectorHeaders = content.selectorHeaders
    }
}

/// Part of a channel's feed, read in order.
public struct FeedPage: Sendable, Equatable {
    /// The rows read that are within the retention.
    public var messages: [FeedMessage]
    /// The last position read (past messages too old to hand out too); nil when there was nothing.
    public var last: Int64?
    /// The read stopped at its limit: there may be more.
    public var isFull: Bool

    public init(messages: [FeedMessage], last: Int64?, isFull: Bool) {
        self.messages = messages
        self.last = last
        self.isFull = isFull
    }
}

/// A subscription to a channel's feed: which messages it takes, and how far it has read.
public struct Subscription: Sendable, Equatable {
    public var id: String
    public var app: String
    public var channel: ChannelName
    public var subscriberId: String?
    public var selector: MessageSelector?
    /// The feed position it has read up to.
    public var position: Int64

    public init(id: String, app: String, channel: ChannelName, subscriberId: String?, selector: MessageSelector?, position: Int64) {
        self.id = id
        self.app = app
        self.channel = channel
        self.subscriberId = subscriberId
        self.selector = selector
        self.position = position
    }

    /// Whether a message of the feed is for this subscription.
    public func takes(_ message: FeedMessage) -> Bool {
        selector?.matches(message.selectorHeaders) ?? true
    }
}

/// How long feeds and subscriptions live, and how many an app may have (`pubsub.*`).
public struct PubSubPolicy: Sendable, Equatable {
    /// A message stays in its feed this long (Backendless keeps 60 s).
    public var retentionMilliseconds: Int64
    /// A subscription neither polled nor streamed for this long expires.
    public var idleMilliseconds: Int64
    public var maxSubscriptionsPerApp: Int

    public init(retentionMilliseconds: Int64 = 60_000, idleMilliseconds: Int64 = 300_000, maxSubscriptionsPerApp: Int = 10_000) {
        self.retentionMilliseconds = retentionMilliseconds
        self.idleMilliseconds = idleMilliseconds
        self.maxSubscriptionsPerApp = maxSubscriptionsPerApp
    }
}

/// Publish-subscribe (issue 24): subscriptions and the channels' feeds. Messages enter a feed with the
/// publish that stores them (`SQLMessageStore`), in the same transaction.
public protocol PubSubStore: Sendable {
    /// A new subscription, reading from the feed's current end. 5008 past the app's limit.
    func subscribe(
        app: String, channel: ChannelName, subscriberId: String?, selector: MessageSelector?, now: Timestamp, policy: PubSubPolicy
    ) async throws -> Subscription

    /// The subscription's next messages (those its selector takes, within the retention), at most
    /// `limit` read, each handed out once: the subscription's position moves past them in the same
    /// transaction. Nil when there is no such live subscription (unknown, another channel's or app's, or
    /// expired).
    func poll(app: String, channel: ChannelName, id: String, now: Timestamp, policy: PubSubPolicy, limit: Int) async throws
        -> [FeedMessage]?

    /// The live subscription, marked used now; nil as for `poll`.
    func subscription(app: String, channel: ChannelName, id: String, now: Timestamp, policy: PubSubPolicy) async throws -> Subscription?

    /// Records that a stream handed the subscription's messages out up to `position` (never moves it back).
    func advance(id: String, to position: Int64, now: Timestamp) async throws

    /// The channel's feed's last position (0 when it is empty): where a listener that wants only what is
    /// published from now on starts (Backendless RT's message listeners).
    func end(app: String, channel: ChannelName) async throws -> Int64

    /// The channel's feed after `position`: up to `limit` rows, those within the retention as messages.
    func feed(app: String, channel: ChannelName, after position: Int64, limit: Int, now: Timestamp, policy: PubSubPolicy)
        async throws -> FeedPage

    /// Deletes feed messages past the retention and expired subscriptions, `batchSize` a transaction.
    func prune(now: Timestamp, policy: PubSubPolicy, batchSize: Int) async throws -> (messages: Int, subscriptions: Int)

    /// Live subscriptions of every app (for the metrics).
    func liveSubscriptions(now: Timestamp, policy: PubSubPolicy) async throws -> Int
}

/// Tells the streams of this process that a feed grew, once the write that grew it has committed. On
/// PostgreSQL the same append also notifies every instance (`PubSubFeed.notifyChannel`).
public final class FeedSignal: Sendable {
    private let observer = Locked<(@Sendable (String, ChannelName) -> Void)?>(nil)

    public init() {}

    public func observe(_ body: @escaping @Sendable (String, ChannelName) -> Void) { observer.withLock { $0 = body } }

    public func fire(app: String, channel: ChannelName) {
        let body = observer.withLock { $0 }
        body?(app, channel)
    }
}

/// The SQL of the feeds that the message store and the pub/sub store share.
public enum PubSubFeed {
    /// The PostgreSQL LISTEN/NOTIFY channel on which appends announce `<appId>\n<channel>`.
    public static let notifyChannel = "herald_feed"

    /// Appends one message to the app's channel feed. On PostgreSQL it first takes the channel's
    /// transaction lock, so the feed's ids commit in order, and notifies the listening instances (at commit).
    static func append(
        _ db: any SQLDatabase, app: String, channel: String, messageId: String, publisherId: String?, content: String,
        publishedAt: Int64
    ) async throws {
        let dialect = StoreDialect(db)
        let key = "\(app)\n\(channel)"
        if dialect.kind == .postgres {
            try await db.raw("SELECT pg_advisory_xact_lock(hashtextextended(\(bind: "feed\n" + key), 0))").run()
        }
        let insert: SQLQueryString = """
            INSERT INTO pubsub_messages (app_id, channel, message_id, publisher_id, content, published_at)
            VALUES (\(bind: app), \(bind: channel), \(bind: messageId), \(bind: publisherId), \(bind: content), \(bind: publishedAt))
            """
        try await db.raw(dialect.insert(insert, notifying: notifyChannel, payload: key)).run()
    }
}
