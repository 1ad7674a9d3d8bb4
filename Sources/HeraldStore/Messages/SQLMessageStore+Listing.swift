import HeraldCore
import SQLKit

/// Which of an app's messages a listing shows.
public struct MessageFilter: Sendable, Equatable {
    /// Any of these (nil: any status).
    public var statuses: [MessageStatus]?
    public var channel: ChannelName?
    /// Only Live Activity publishes (messages with a `LiveActivityTarget`): the console's Live Activities page.
    public var liveActivity: Bool

    public init(statuses: [MessageStatus]? = nil, channel: ChannelName? = nil, liveActivity: Bool = false) {
        self.statuses = statuses
        self.channel = channel
        self.liveActivity = liveActivity
    }
}

/// Where a listing of messages goes on from: the last message's creation time and id (newest first).
public struct MessageCursor: Sendable, Equatable, CustomStringConvertible {
    public let createdAt: Int64
    public let id: String

    public init(createdAt: Int64, id: String) {
        self.createdAt = createdAt
        self.id = id
    }

    /// `createdAt` and `id` with a `~` between: what a listing hands out and takes back.
    public var description: String { "\(createdAt)~\(id)" }

    public init?(_ text: String) {
        let parts = text.split(separator: "~", maxSplits: 1)
        guard parts.count == 2, let time = Int64(parts[0]), time >= 0, parts[1].hasPrefix("message:"), parts[1].count <= 64 else {
            return nil
        }
        self.init(createdAt: time, id: String(parts[1]))
    }
}

/// A page of messages, newest first, and where the next starts (nil: no more).
public struct MessageListing: Sendable {
    public var messages: [StoredMessage]
    public var nextCursor: MessageCursor?

    public init(messages: [StoredMessage], nextCursor: MessageCursor?) {
        self.messages = messages
        self.nextCursor = nextCursor
    }
}

extension SQLMessageStore {
    /// A page of the app's messages that match `filter`, newest first, after `cursor`. Keyset paging on
    /// (created_at, id) through `messages_by_app` (or `messages_by_channel` with a channel), so a page
    /// costs the same wherever it starts; a status filter is applied along that index. Each message's
    /// counts include its running slices, split by provider as its status is.
    public func messages(app: String, filter: MessageFilter, after cursor: MessageCursor?, limit: Int) async throws -> MessageListing {
        try await backend.read { db in
            var conditions: [SQLQueryString] = ["m.app_id = \(bind: app)"]
            // Scheduled and running messages are few among many finished ones: asked for only those, the
            // page reads the partial index messages_due rather than walking the app's history for them (all
            // 100,000 messages when none runs). SQLite must be told; PostgreSQL's planner sees it itself.
            var table: SQLQueryString = "messages m"
            if let statuses = filter.statuses, !statuses.isEmpty {
                conditions.append("m.status IN (\(statuses.map { "\(bind: $0.rawValue)" as SQLQueryString }.joined(separator: ", ")))")
                if statuses.allSatisfy({ [.scheduled, .running].contains($0) }) {
                    conditions.append("m.status IN ('scheduled', 'running')")
                    if backend.dialect.kind != .postgres { table = "messages m INDEXED BY messages_due" }
                }
            }
            if let channel = filter.channel { conditions.append("m.channel = \(bind: channel.rawValue)") }
            if filter.liveActivity {
                // Live Activity publishes may be a few among many messages: the partial index
                // messages_live_activity holds only them (SQLite is told, as for messages_due).
                conditions.append("m.live_activity IS NOT NULL")
                if filter.statuses == nil, filter.channel == nil, backend.dialect.kind != .postgres {
                    table = "messages m INDEXED BY messages_live_activity"
                }
            }
            if let cursor {
                // A row value, which both databases take as one range on the index (an OR of the two is not:
                // SQLite then walks the app's whole index from the newest, 6.4 ms against 0.45 ms half way
                // down 100,000 messages).
                conditions.append("(m.created_at, m.id) < (\(bind: cursor.createdAt), \(bind: cursor.id))")
            }
            func sum(_ column: String) -> String { "CAST(COALESCE(SUM(\(column)), 0) AS BIGINT)" }
            let live = Self.countColumns.map { column in
                "(SELECT \(sum("s.\(column)")) FROM message_slices s WHERE s.message_id = m.id) AS slices_\(column)"
            }
            let rows = try await db.raw(
                """
                SELECT m.*, \(unsafeRaw: live.joined(separator: ", ")) FROM \(table)
                WHERE \(conditions.joined(separator: " AND "))
                ORDER BY m.created_at DESC, m.id DESC LIMIT \(bind: limit + 1)
                """
            ).all()
            var messages = try rows.prefix(limit).map { row in
                var message = try Self.decode(row)
                let slices = try Self.decodeCounts(row, prefix: "slices_")
                message.deliveries.sent += slices.sent
                message.deliveries.failed += slices.failed
                message.deliveries.pending += slices.pending
                message.deliveries.tokensRemoved += slices.tokensRemoved
                message.deliveries.tokensDeactivated += slices.tokensDeactivated
                return message
            }
            if !messages.isEmpty {
                let ids = messages.map(\.id)
                let byProvider = Self.countColumns.filter { $0 != "pending" }.map { "\(sum($0)) AS \($0)" }
                let parts = try await db.raw(
                    """
                    SELECT message_id, provider, CAST(0 AS BIGINT) AS pending, \(unsafeRaw: byProvider.joined(separator: ", "))
                    FROM message_counts WHERE message_id IN (\(ids.map { "\(bind: $0)" as SQLQueryString }.joined(separator: ", ")))
                    GROUP BY message_id, provider
                    """
                ).all()
                var index: [String: Int] = [:]
                for (position, message) in messages.enumerated() { index[message.id] = position }
                for row in parts {
                    guard let position = index[try row.decode(column: "message_id", as: String.self)],
                        let provider = PushProvider(rawValue: try row.decode(column: "provider", as: String.self))
                    else { continue }
                    let part = try Self.decodeCounts(row)
                    messages[position].deliveries.byProvider[provider] = ProviderCounts(
                        sent: part.sent, failed: part.failed, tokensRemoved: part.tokensRemoved, tokensDeactivated: part.tokensDeactivated)
                }
            }
            let next = rows.count > limit ? messages.last.map { MessageCursor(createdAt: $0.createdAt.milliseconds, id: $0.id) } : nil
            return MessageListing(messages: messages, nextCursor: next)
        }
    }

    /// How many of the app's messages accepted since `since` are in each state (the console's Overview).
    /// One range of `messages_by_app`.
    public func commonestFailures(app: String, ids: [String]) async throws -> [String: FailureReason] {
        guard !ids.isEmpty else { return [:] }
        let binds: [any Encodable & Sendable] = ids
        return try await backend.read { db in
            var commonest: [String: FailureReason] = [:]
            let rows = try await db.raw(
                """
                SELECT message_id, outcome, reason, COUNT(*) AS sends FROM deliveries
                WHERE message_id IN (\(binds: binds)) AND outcome <> 'sent' AND app_id = \(bind: app)
                GROUP BY message_id, outcome, reason
                """
            ).all()
            for row in rows {
                guard let outcome = DeliveryRecord.Outcome(rawValue: try row.decode(column: "outcome", as: String.self)) else { continue }
                let failure = FailureReason(
                    outcome: outcome, reason: try row.decode(column: "reason", as: String?.self),
                    count: try row.decode(column: "sends", as: Int64.self))
                let id = try row.decode(column: "message_id", as: String.self)
                if let known = commonest[id], known.count >= failure.count { continue }
                commonest[id] = failure
            }
            return commonest
        }
    }

    public func failureReasons(app: String, id: String, limit: Int) async throws -> [FailureReason] {
        try await backend.read { db in
            // `outcome <> 'sent'` as the partial index states it, so both databases can use deliveries_failures.
            try await db.raw(
                """
                SELECT outcome, reason, COUNT(*) AS sends FROM deliveries
                WHERE message_id = \(bind: id) AND outcome <> 'sent' AND app_id = \(bind: app)
                GROUP BY outcome, reason
                ORDER BY sends DESC, outcome, reason
                LIMIT \(bind: limit)
                """
            ).all().compactMap { row in
                guard let outcome = DeliveryRecord.Outcome(rawValue: try row.decode(column: "outcome", as: String.self)) else { return nil }
                return FailureReason(
                    outcome: outcome, reason: try row.decode(column: "reason", as: String?.self),
                    count: try row.decode(column: "sends", as: Int64.self))
            }
        }
    }

    public func statusCounts(app: String, since: Timestamp) async throws -> [MessageStatus: Int64] {
        try await backend.read { db in
            var counts: [MessageStatus: Int64] = [:]
            for row in try await db.raw(
                """
                SELECT status, COUNT(*) AS n FROM messages
                WHERE app_id = \(bind: app) AND created_at >= \(bind: since.milliseconds) GROUP BY status
                """
            ).all() {
                guard let status = MessageStatus(rawValue: try row.decode(column: "status", as: String.self)) else { continue }
                counts[status] = try row.decode(column: "n", as: Int64.self)
            }
            return counts
        }
    }
}
