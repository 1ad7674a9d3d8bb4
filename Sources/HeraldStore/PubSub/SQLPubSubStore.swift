import Foundation
import HeraldCore
import SQLKit

/// The one `PubSubStore`, on SQLKit, for SQLite and PostgreSQL alike.
public struct SQLPubSubStore: PubSubStore {
    let backend: any SQLBackend

    public init(backend: any SQLBackend) { self.backend = backend }

    public func subscribe(
        app: String, channel: ChannelName, subscriberId: String?, selector: MessageSelector?, now: Timestamp, policy: PubSubPolicy
    ) async throws -> Subscription {
        let id = UUID().lowercasedText
        let idleBefore = now.milliseconds - policy.idleMilliseconds
        return try await backend.write { db in
            let live =
                try await db.raw(
                    "SELECT COUNT(*) AS live FROM subscriptions WHERE app_id = \(bind: app) AND last_seen_at >= \(bind: idleBefore)"
                ).first().map { try $0.decode(column: "live", as: Int.self) } ?? 0
            guard live < policy.maxSubscriptionsPerApp else { throw HeraldFault.tooManySubscriptions(limit: policy.maxSubscriptionsPerApp) }
            // From the feed's end: a message published before the answer is not this subscription's.
            let end = try await Self.end(db, app: app, channel: channel.rawValue)
            try await db.raw(
                """
                INSERT INTO subscriptions (id, app_id, channel, subscriber_id, selector, position, created_at, last_seen_at)
                VALUES (\(bind: id), \(bind: app), \(bind: channel.rawValue), \(bind: subscriberId), \(bind: selector?.text), \(bind: end),
                        \(bind: now.milliseconds), \(bind: now.milliseconds))
                """
            ).run()
            return Subscription(id: id, app: app, channel: channel, subscriberId: subscriberId, selector: selector, position: end)
        }
    }

    /// The last position of the channel's feed (0 for an empty one), through pubsub_messages_feed.
    static func end(_ db: any SQLDatabase, app: String, channel: String) async throws -> Int64 {
        try await db.raw(
            """
            SELECT id FROM pubsub_messages WHERE app_id = \(bind: app) AND channel = \(bind: channel) ORDER BY id DESC LIMIT 1
            """
        ).first().map { try $0.decode(column: "id", as: Int64.self) } ?? 0
    }

    public func poll(app: String, channel: ChannelName, id: String, now: Timestamp, policy: PubSubPolicy, limit: Int) async throws
        -> [FeedMessage]?
    {
        try await backend.write { db in
            // The update locks the subscription's row (PostgreSQL) until the transaction ends, so two
            // polls of one subscription through two instances take turns and never hand a message out twice.
            guard let subscription = try await Self.touch(db, app: app, channel: channel, id: id, now: now, policy: policy) else {
                return nil
            }
            let read = try await Self.feed(
                db, app: app, channel: channel.rawValue, after: subscription.position, limit: limit, now: now, policy: policy)
            guard let last = read.last else { return [] }
            try await db.raw("UPDATE subscriptions SET position = \(bind: last) WHERE id = \(bind: id)").run()
            return read.messages.filter(subscription.takes)
        }
    }

    public func subscription(app: String, channel: ChannelName, id: String, now: Timestamp, policy: PubSubPolicy) async throws
        -> Subscription?
    {
        try await backend.write { db in try await Self.touch(db, app: app, channel: channel, id: id, now: now, policy: policy) }
    }

    /// Marks the live subscription used and reads it back; nil when there is none.
    static func touch(_ db: any SQLDatabase, app: String, channel: ChannelName, id: String, now: Timestamp, policy: PubSubPolicy)
        async throws -> Subscription?
    {
        guard
            let row = try await db.raw(
                """
                UPDATE subscriptions SET last_seen_at = \(bind: now.milliseconds)
                WHERE id = \(bind: id) AND app_id = \(bind: app) AND channel = \(bind: channel.rawValue)
                  AND last_seen_at >= \(bind: now.milliseconds - policy.idleMilliseconds)
                RETURNING subscriber_id, selector, position
                """
            ).first()
        else { return nil }
        // The selector was parsed when the subscription was made; one stored by an older build that no
        // longer parses takes nothing rather than everything.
        let selector = try row.decode(column: "selector", as: String?.self).map { text in
            (try? MessageSelector(parsing: text)) ?? MessageSelector.nothing
        }
        return Subscription(
            id: id, app: app, channel: channel, subscriberId: try row.decode(column: "subscriber_id", as: String?.self),
            selector: selector, position: try row.decode(column: "position", as: Int64.self))
    }

    public func advance(id: String, to position: Int64, now: Timestamp) async throws {
        try await backend.write { db in
            try await db.raw(
                """
                UPDATE subscriptions SET position = CASE WHEN position < \(bind: position) THEN \(bind: position) ELSE position END,
                    last_seen_at = \(bind: now.milliseconds)
                WHERE id = \(bind: id)
                """
            ).run()
        }
    }

    public func end(app: String, channel: ChannelName) async throws -> Int64 {
        try await backend.read { db in try await Self.end(db, app: app, channel: channel.rawValue) }
    }

    public func feed(app: String, channel: ChannelName, after position: Int64, limit: Int, now: Timestamp, policy: PubSubPolicy)
        async throws -> FeedPage
    {
        try await backend.read { db in
            try await Self.feed(db, app: app, channel: channel.rawValue, after: position, limit: limit, now: now, policy: policy)
        }
    }

    /// Up to `limit` rows after `position` in order; those past the retention are read over (not
    /// filtered in SQL, so each is read once and the position moves past it) and left out.
    static func feed(
        _ db: any SQLDatabase, app: String, channel: String, after position: Int64, limit: Int, now: Timestamp, policy: PubSubPolicy
    ) async throws -> FeedPage {
        let rows = try await db.raw(
            """
            SELECT id, message_id, publisher_id, content, published_at FROM pubsub_messages
            WHERE app_id = \(bind: app) AND channel = \(bind: channel) AND id > \(bind: position)
            ORDER BY id LIMIT \(bind: max(1, limit))
            """
        ).all()
        let oldest = now.milliseconds - policy.retentionMilliseconds
        var messages: [FeedMessage] = []
        var last: Int64?
        for row in rows {
            let id = try row.decode(column: "id", as: Int64.self)
            last = id
            let publishedAt = try row.decode(column: "published_at", as: Int64.self)
            guard publishedAt >= oldest else { continue }
            messages.append(
                FeedMessage(
                    position: id, messageId: try row.decode(column: "message_id", as: String.self),
                    publisherId: try row.decode(column: "publisher_id", as: String?.self),
                    content: try PubSubContent(decoding: try row.decode(column: "content", as: String.self)),
                    publishedAt: Timestamp(milliseconds: publishedAt)))
        }
        return FeedPage(messages: messages, last: last, isFull: rows.count >= max(1, limit))
    }

    public func prune(now: Timestamp, policy: PubSubPolicy, batchSize: Int) async throws -> (messages: Int, subscriptions: Int) {
        let batch = max(1, batchSize)
        func deleteAll(_ statement: SQLQueryString) async throws -> Int {
            var total = 0
            while true {
                let deleted = try await backend.write { db in try await db.raw(statement).all().count }
                total += deleted
                if deleted < batch { return total }
            }
        }
        let messages = try await deleteAll(
            """
            DELETE FROM pubsub_messages WHERE id IN (
                SELECT id FROM pubsub_messages WHERE published_at < \(bind: now.milliseconds - policy.retentionMilliseconds)
                ORDER BY published_at LIMIT \(literal: batch))
            RETURNING id
            """)
        let subscriptions = try await deleteAll(
            """
            DELETE FROM subscriptions WHERE id IN (
                SELECT id FROM subscriptions WHERE last_seen_at < \(bind: now.milliseconds - policy.idleMilliseconds)
                ORDER BY last_seen_at LIMIT \(literal: batch))
            RETURNING id
            """)
        return (messages, subscriptions)
    }

    public func liveSubscriptions(now: Timestamp, policy: PubSubPolicy) async throws -> Int {
        try await backend.read { db in
            try await db.raw(
                "SELECT COUNT(*) AS live FROM subscriptions WHERE last_seen_at >= \(bind: now.milliseconds - policy.idleMilliseconds)"
            ).first().map { try $0.decode(column: "live", as: Int.self) } ?? 0
        }
    }
}
