import Foundation
import HeraldCore
import SQLKit

/// The one `MessageStore`, on SQLKit like the registration store, so SQLite and PostgreSQL share it.
public struct SQLMessageStore: MessageStore {
    let backend: any SQLBackend
    /// Whose clock decides leases and due times (see `StoreClock`).
    let clock: StoreClock

    /// `clock` defaults to the backend's: the database's on PostgreSQL, the caller's on SQLite. Tests that
    /// drive time by hand on PostgreSQL pass `.caller`.
    /// Which apps' changes write webhook events (in the same transactions).
    let events: EventOutbox
    /// Told when a channel's pub/sub feed grew (after the commit), for this process's streams.
    let feed: FeedSignal?

    public init(backend: any SQLBackend, clock: StoreClock? = nil, events: EventOutbox = .none, feed: FeedSignal? = nil) {
        self.backend = backend
        self.clock = clock ?? backend.leaseClock
        self.events = events
        self.feed = feed
    }

    /// The count columns a message row and each of its slices have (the totals; `message_counts` splits
    /// the finished ones by provider).
    static let countColumns = ["sent", "failed", "pending", "tokens_removed", "tokens_deactivated"]

    /// The counts in `row`, read from the count columns whose names start with `prefix`.
    static func decodeCounts(_ row: any SQLRow, prefix: String = "") throws -> DeliveryCounts {
        func value(_ column: String) throws -> Int64 { try row.decode(column: prefix + column, as: Int64.self) }
        return DeliveryCounts(
            sent: try value("sent"), failed: try value("failed"), pending: try value("pending"),
            tokensRemoved: try value("tokens_removed"), tokensDeactivated: try value("tokens_deactivated"))
    }

    /// The message's counts: its row plus its slices' (the occurrence in progress), and the finished
    /// ones by provider, in one statement (one snapshot), so a fold or a checkpoint committing meanwhile
    /// can neither make counts dip nor the providers' disagree with the totals. The first row (no
    /// provider) has the totals; each further row one provider's sums over the message and its slices.
    static func counts(_ db: any SQLDatabase, id: String) async throws -> DeliveryCounts {
        func sum(_ column: String) -> String { "CAST(COALESCE(SUM(\(column)), 0) AS BIGINT)" }
        let totals = countColumns.map { column in
            "m.\(column) + (SELECT \(sum("s.\(column)")) FROM message_slices s WHERE s.message_id = m.id) AS \(column)"
        }
        let byProvider = countColumns.map { $0 == "pending" ? "CAST(0 AS BIGINT)" : sum($0) }
        let rows = try await db.raw(
            """
            SELECT 0 AS part, CAST(NULL AS TEXT) AS provider, \(unsafeRaw: totals.joined(separator: ", "))
            FROM messages m WHERE m.id = \(bind: id)
            UNION ALL
            SELECT 1, provider, \(unsafeRaw: byProvider.joined(separator: ", "))
            FROM message_counts WHERE message_id = \(bind: id) GROUP BY provider
            ORDER BY part
            """
        ).all()
        guard let first = rows.first, try first.decode(column: "part", as: Int.self) == 0 else { return DeliveryCounts() }
        var counts = try decodeCounts(first)
        for row in rows.dropFirst() {
            // A provider this build does not know (a newer build's rows) is left out, never misnamed.
            guard let provider = PushProvider(rawValue: try row.decode(column: "provider", as: String.self)) else { continue }
            let part = try decodeCounts(row)
            counts.byProvider[provider] = ProviderCounts(
                sent: part.sent, failed: part.failed, tokensRemoved: part.tokensRemoved, tokensDeactivated: part.tokensDeactivated)
        }
        return counts
    }

    public func insert(_ message: StoredMessage, now: Timestamp, idempotency: IdempotencyRecord?) async throws {
        let feedsNow = try await backend.write { db in
            if let idempotency { try await takeIdempotencyKey(db, idempotency, for: message) }
            return try await insertRow(db, message, now: now)
        }
        if feedsNow { feed?.fire(app: message.app, channel: message.channel) }
    }

    public func insertClaimed(
        _ message: StoredMessage, now: Timestamp, owner: String, leaseMilliseconds: Int64, slicing: Slicing,
        idempotency: IdempotencyRecord?
    ) async throws -> ClaimedSlice {
        // Encoded once, for the row and the feed entry.
        let pubsub = message.pubsub?.encoded()
        let claimed = try await backend.write { db in
            // The key first: a concurrent publish with it waits here (PostgreSQL) rather than after its message.
            if let idempotency { try await takeIdempotencyKey(db, idempotency, for: message) }
            let dialect = StoreDialect(db)
            let sqlNow = clock.now(now, dialect)
            // Written as the claim would leave it, from the message in hand: running, its occurrence's slices
            // in, the first leased to `owner`. The due time plays no part (it is the publisher's clock, and
            // may be a little ahead of the database's).
            let ranges =
                Self.splits(
                    slicing, singlecast: message.singlecast != nil, pushes: message.contents != nil,
                    broadcasts: message.liveActivity?.broadcast != nil)
                ? try await Self.sliceRanges(
                    db,
                    keys: message.audience != nil
                        ? .ofApp(message.app)
                        : try await RecipientKeys.of(db, app: message.app, channel: message.channel.rawValue, wholeApp: false),
                    slicing: slicing)
                : [(0, nil)]
            let row = try rowInsert(message, status: .running, pubsub: pubsub, fed: pubsub != nil, now: now)
            let slices = Self.slicesInsert(
                id: message.id, occurrence: 0, ranges: ranges, now: sqlNow, lease: (owner, leaseMilliseconds))
            switch dialect.kind {
            case .postgres:
                // One statement. Only a message of several slices wakes the other instances (`NOTIFY
                // herald_due`, at commit): a message of one slice is this instance's alone.
                let notify: SQLQueryString =
                    ranges.count > 1 ? "SELECT pg_notify(\(bind: DueMessages.notifyChannel), '')" : "SELECT 1 AS one"
                try await db.raw("WITH message AS (\(row)), slices AS (\(slices)) \(notify)").run()
            case .sqlite:
                try await db.raw(row).run()
                try await db.raw(slices).run()
            }
            if let pubsub { try await appendToFeed(db, message, content: pubsub, now: now) }
            var running = message
            running.status = .running
            running.occurrences = 0
            running.deliveries = DeliveryCounts()
            running.createdAt = now
            return ClaimedSlice(message: running, slice: 0, cursor: ranges[0].after, upTo: ranges[0].upTo, sequence: 0)
        }
        if pubsub != nil { feed?.fire(app: message.app, channel: message.channel) }
        return claimed
    }

    /// Writes the message's row (and, when it is due now, sends `NOTIFY herald_due` with it and puts its first
    /// occurrence in its channel's feed); true when the feed grew.
    private func insertRow(_ db: any SQLDatabase, _ message: StoredMessage, now: Timestamp) async throws -> Bool {
        // The first occurrence reaches the channel's subscribers now when it is due now (a scheduled one
        // when it starts: `startDueOccurrences`).
        let dueNow = message.dueAt.map { $0 <= now } ?? false
        let pubsub = message.pubsub?.encoded()
        let fedNow = dueNow ? pubsub : nil
        let insert = try rowInsert(message, status: message.status, pubsub: pubsub, fed: fedNow != nil, now: now)
        // Every instance's dispatcher hears of a message due now at commit, not at its next poll.
        try await db.raw(dueNow ? StoreDialect(db).insert(insert, notifying: DueMessages.notifyChannel, payload: "") : insert).run()
        if let fedNow { try await appendToFeed(db, message, content: fedNow, now: now) }
        return fedNow != nil
    }

    /// The message's first occurrence into its channel's feed, stamped `now`; `content` is its encoded `pubsub`.
    private func appendToFeed(_ db: any SQLDatabase, _ message: StoredMessage, content: String, now: Timestamp) async throws {
        try await PubSubFeed.append(
            db, app: message.app, channel: message.channel.rawValue, messageId: message.id, publisherId: message.publisherId,
            content: content, publishedAt: now.milliseconds)
    }

    /// The INSERT of the message's row with `status` and its encoded `pubsub`; `fed`: its first occurrence is in
    /// its channel's feed.
    private func rowInsert(
        _ message: StoredMessage, status: MessageStatus, pubsub: String?, fed: Bool, now: Timestamp
    ) throws -> SQLQueryString {
        let singlecast = try message.singlecast.map { String(decoding: try JSONEncoder().encode($0), as: UTF8.self) }
        let segment = try message.segment.map { String(decoding: try JSONEncoder().encode($0), as: UTF8.self) }
        let contents = message.contents?.encoded()
        let audience = try message.audience.map { String(decoding: try JSONEncoder().encode($0.map(\.rawValue)), as: UTF8.self) }
        let liveActivity = message.liveActivity.map(SortedJSON.text)
        return """
            INSERT INTO messages (id, app_id, channel, publisher_id, policy, broadcast, singlecast, segment, contents,
                template_name, audience_channels, live_activity, pubsub, fed_occurrences, publish_at, repeat_every, repeat_expires_at, status, due_at, created_at, updated_at)
            VALUES (\(bind: message.id), \(bind: message.app), \(bind: message.channel.rawValue), \(bind: message.publisherId),
                \(bind: message.policy.rawValue), \(bind: message.broadcast.rawValue), \(bind: singlecast), \(bind: segment),
                \(bind: contents), \(bind: message.templateName), \(bind: audience), \(bind: liveActivity), \(bind: pubsub), \(bind: fed ? 1 : 0),
                \(bind: message.schedule.publishAt?.milliseconds), \(bind: message.schedule.repeatEverySeconds),
                \(bind: message.schedule.repeatExpiresAt?.milliseconds), \(bind: status.rawValue),
                \(bind: message.dueAt?.milliseconds), \(bind: now.milliseconds), \(bind: now.milliseconds))
            """
    }

    public func pruneFinished(before cutoff: Timestamp, batchSize: Int, app: String?) async throws -> Int {
        let ofApp: SQLQueryString = app.map { "AND app_id = \(bind: $0)" } ?? ""
        var pruned = 0
        // Oldest first through messages_finished (migration 0012); a finished message has no slices left.
        // Each batch starts where the last one ended: for one app, the other apps' older messages (which
        // stay) would otherwise be read again by every batch.
        var from = Int64.min
        while true {
            let deleted = try await backend.write { [from] db in
                try await db.raw(
                    """
                    DELETE FROM messages WHERE id IN (
                        SELECT id FROM messages
                        WHERE status IN ('published', 'failed', 'cancelled') AND updated_at >= \(bind: from)
                          AND updated_at < \(bind: cutoff.milliseconds) \(ofApp)
                        ORDER BY updated_at LIMIT \(literal: max(1, batchSize)))
                    RETURNING updated_at
                    """
                ).all().map { try $0.decode(column: "updated_at", as: Int64.self) }
            }
            pruned += deleted.count
            if deleted.count < max(1, batchSize) { return pruned }
            from = deleted.max() ?? from
        }
    }

    public func message(app: String, id: String) async throws -> StoredMessage? {
        try await backend.read { db in
            guard
                let row = try await db.raw("SELECT * FROM messages WHERE id = \(bind: id) AND app_id = \(bind: app)").first()
            else { return nil }
            var message = try Self.decode(row)
            // Read after the row: its status may be a little older than the counts, never newer.
            message.deliveries = try await Self.counts(db, id: id)
            return message
        }
    }

    public func cancel(app: String, id: String, now: Timestamp) async throws -> Bool {
        try await backend.write { db in
            // Waiting for its (next) occurrence: it ends here. A running one ends when its slices stop.
            if let waiting = try await db.raw(
                """
                UPDATE messages SET status = 'cancelled', due_at = NULL, updated_at = \(bind: now.milliseconds)
                WHERE id = \(bind: id) AND app_id = \(bind: app) AND status = 'scheduled'
                RETURNING occurrences
                """
            ).first() {
                try await appendFinished(
                    db, id: id, occurrence: try waiting.decode(column: "occurrences", as: Int64.self), status: .cancelled, error: nil,
                    at: now.milliseconds)
                return true
            }
            let rows = try await db.raw(
                """
                UPDATE messages SET status = 'cancelled', due_at = NULL, updated_at = \(bind: now.milliseconds)
                WHERE id = \(bind: id) AND app_id = \(bind: app) AND status IN ('scheduled', 'running')
                RETURNING id
                """
            ).all()
            return !rows.isEmpty
        }
    }

    static func decode(_ row: any SQLRow) throws -> StoredMessage {
        let singlecast = try row.decode(column: "singlecast", as: String?.self)
            .map { try JSONDecoder().decode([String].self, from: Data($0.utf8)) }
        let segment = try row.decode(column: "segment", as: String?.self)
            .map { try JSONDecoder().decode(Segment.self, from: Data($0.utf8)) }
        let contents = try row.decode(column: "contents", as: String?.self).map(MessageContents.init(decoding:))
        let audience = try row.decode(column: "audience_channels", as: String?.self)
            .map { try JSONDecoder().decode([String].self, from: Data($0.utf8)).map { try ChannelName(validating: $0) } }
        guard let status = MessageStatus(rawValue: try row.decode(column: "status", as: String.self)),
            let policy = PublishPolicy(rawValue: try row.decode(column: "policy", as: String.self))
        else {
            throw StoreInvariantViolation("message row with an unknown status or policy")
        }
        func timestamp(_ column: String) throws -> Timestamp? {
            try row.decode(column: column, as: Int64?.self).map(Timestamp.init(milliseconds:))
        }
        return StoredMessage(
            id: try row.decode(column: "id", as: String.self),
            app: try row.decode(column: "app_id", as: String.self),
            channel: try ChannelName(validating: try row.decode(column: "channel", as: String.self)),
            publisherId: try row.decode(column: "publisher_id", as: String?.self),
            policy: policy,
            broadcast: PushBroadcast(rawValue: try row.decode(column: "broadcast", as: Int.self)),
            singlecast: singlecast,
            segment: segment,
            contents: contents,
            pubsub: try row.decode(column: "pubsub", as: String?.self).map(PubSubContent.init(decoding:)),
            templateName: try row.decode(column: "template_name", as: String?.self),
            audience: audience,
            liveActivity: try row.decode(column: "live_activity", as: String?.self)
                .map { try JSONDecoder().decode(LiveActivityTarget.self, from: Data($0.utf8)) },
            schedule: PublishSchedule(
                publishAt: try timestamp("publish_at"),
                repeatEverySeconds: try row.decode(column: "repeat_every", as: Int64?.self),
                repeatExpiresAt: try timestamp("repeat_expires_at")),
            status: status,
            errorMessage: try row.decode(column: "error_message", as: String?.self),
            dueAt: try timestamp("due_at"),
            occurrences: try row.decode(column: "occurrences", as: Int64.self),
            deliveries: try decodeCounts(row),
            createdAt: Timestamp(milliseconds: try row.decode(column: "created_at", as: Int64.self)))
    }
}
