import Foundation
import HeraldCore
import SQLKit

extension SQLMessageStore {
    public func hasDue(now: Timestamp) async throws -> Bool {
        try await backend.read { db in
            let now = clock.now(now, StoreDialect(db))
            return try await db.raw(
                """
                SELECT 1 AS due FROM messages WHERE status = 'scheduled' AND due_at <= \(now)
                UNION ALL
                SELECT 1 AS due FROM message_slices WHERE done = \(bind: false) AND (lease_until IS NULL OR lease_until < \(now))
                LIMIT 1
                """
            ).first() != nil
        }
    }

    public func claim(
        owner: String, now: Timestamp, leaseMilliseconds: Int64, limit: Int, slicing: Slicing,
        running: Set<String>, foldingAbandoned: Bool
    ) async throws -> [ClaimedSlice] {
        guard limit > 0 else { return [] }
        let recordedAt = now.milliseconds
        let (claimed, fed) = try await backend.write { db in
            let dialect = StoreDialect(db)
            let now = clock.now(now, dialect)
            if foldingAbandoned { try await foldAbandonedSlices(db, now: now, at: recordedAt) }
            let fed = try await Self.startDueOccurrences(db, now: now, limit: limit, slicing: slicing, dialect: dialect, at: recordedAt)
            // Candidates, locked (PostgreSQL) so two instances never take the same slice; rows another
            // instance is taking right now are skipped, not waited for.
            let candidates = try await db.raw(
                """
                SELECT s.message_id, s.slice,
                       CASE WHEN s.created_at <= \(now) - \(bind: slicing.graceMilliseconds) THEN 1 ELSE 0 END AS settled
                FROM message_slices s JOIN messages m ON m.id = s.message_id
                WHERE m.status = 'running' AND s.done = \(bind: false) AND (s.lease_until IS NULL OR s.lease_until < \(now))
                ORDER BY m.due_at, s.message_id, s.slice
                LIMIT \(bind: limit * 4)\(dialect.skipLocked(of: "s"))
                """
            ).all()
            var taken: [(id: String, slice: Int)] = []
            var messages = Set<String>()
            for row in candidates where taken.count < limit {
                let id = try row.decode(column: "message_id", as: String.self)
                let settled = try row.decode(column: "settled", as: Int.self) == 1
                guard !messages.contains(id), !running.contains(id) || settled else { continue }
                messages.insert(id)
                taken.append((id, try row.decode(column: "slice", as: Int.self)))
            }
            let claimed = try await Self.lease(
                db, taken, owner: owner, now: now, leaseMilliseconds: leaseMilliseconds, dialect: dialect)
            return (claimed, fed)
        }
        for (app, channel) in fed { feed?.fire(app: app, channel: channel) }
        return claimed
    }

    /// Leases `taken` (at most one slice a message) to `owner` and returns them with their messages, in the
    /// order given; a slice whose lease another owner holds (or that is done) is left out.
    static func lease(
        _ db: any SQLDatabase, _ taken: [(id: String, slice: Int)], owner: String, now: SQLQueryString, leaseMilliseconds: Int64,
        dialect: StoreDialect
    ) async throws -> [ClaimedSlice] {
        guard !taken.isEmpty else { return [] }
        // One statement leases every slice taken; their messages are read with it on PostgreSQL (a
        // data-modifying CTE: one round trip fewer between a publish and its first send), by a second
        // statement on SQLite. The lease test is repeated here so PostgreSQL re-checks it on the locked rows.
        // The returned columns are renamed because `messages` has a `fanout_cursor` of its own, which `m.*`
        // would otherwise put beside the slice's.
        let keys = taken.map { "(\(bind: $0.id), \(bind: $0.slice))" as SQLQueryString }.joined(separator: ", ")
        let lease: SQLQueryString = """
            UPDATE message_slices SET lease_owner = \(bind: owner), lease_until = \(now) + \(bind: leaseMilliseconds),
                pending = 0, updated_at = \(now)
            WHERE (message_id, slice) IN (\(keys)) AND done = \(bind: false)
              AND (lease_until IS NULL OR lease_until < \(now))
            RETURNING message_id AS lease_message, fanout_cursor AS lease_cursor, up_to_key AS lease_up_to,
                checkpoint_seq AS lease_sequence
            """
        // By message: each message has at most one slice taken.
        var leases: [String: any SQLRow] = [:]
        var byID: [String: StoredMessage] = [:]
        if dialect.kind == .postgres {
            for row in try await db.raw(
                "WITH leased AS (\(lease)) SELECT leased.*, m.* FROM leased JOIN messages m ON m.id = leased.lease_message"
            ).all() {
                let message = try Self.decode(row)
                leases[message.id] = row
                byID[message.id] = message
            }
        } else {
            for row in try await db.raw(lease).all() { leases[try row.decode(column: "lease_message", as: String.self)] = row }
            guard !leases.isEmpty else { return [] }
            let list = leases.keys.map { "\(bind: $0)" as SQLQueryString }.joined(separator: ", ")
            for row in try await db.raw("SELECT * FROM messages WHERE id IN (\(list))").all() {
                let message = try Self.decode(row)
                byID[message.id] = message
            }
        }
        return try taken.compactMap { id, slice -> ClaimedSlice? in
            guard let message = byID[id], let row = leases[id] else { return nil }
            return ClaimedSlice(
                message: message, slice: slice,
                cursor: try row.decode(column: "lease_cursor", as: Int64.self),
                upTo: try row.decode(column: "lease_up_to", as: Int64?.self),
                sequence: try row.decode(column: "lease_sequence", as: Int64.self))
        }
    }

    /// Marks due scheduled messages running and writes their slices: the channel's device keys from the
    /// lowest to the highest split into equal key ranges, as many as the recipients fill at `sliceSize`
    /// each (at most `maxSlices`); the first slice starts at 0 and the last has no end, so a device that
    /// joins the channel during the fan-out falls in one. A singlecast or a message without a push is one slice.
    ///
    /// An occurrence of a `PUBSUB` or `BOTH` message not yet in its channel's feed enters it here (the
    /// first one usually entered when it was published), stamped `publishedAt`; returns the channels
    /// whose feeds grew. The appends come last, in the order of their channels, so two instances' claims
    /// take the channels' locks (PostgreSQL) in one order.
    static func startDueOccurrences(
        _ db: any SQLDatabase, now: SQLQueryString, limit: Int, slicing: Slicing,
        dialect: StoreDialect, at publishedAt: Int64
    ) async throws -> [(String, ChannelName)] {
        let due = try await db.raw(
            """
            SELECT id, app_id, channel, singlecast, contents, occurrences, audience_channels, pubsub, fed_occurrences,
                   publisher_id, live_activity,
                   (SELECT c.id FROM channels c WHERE c.app_id = messages.app_id AND c.name = messages.channel) AS channel_id
            FROM messages
            WHERE status = 'scheduled' AND due_at <= \(now)
            ORDER BY due_at LIMIT \(bind: limit)\(dialect.skipLocked())
            """
        ).all()
        var appends: [(app: String, channel: String, id: String, publisher: String?, content: String)] = []
        for row in due {
            let id = try row.decode(column: "id", as: String.self)
            let occurrence = try row.decode(column: "occurrences", as: Int64.self)
            var fed = try row.decode(column: "fed_occurrences", as: Int64.self)
            if let content = try row.decode(column: "pubsub", as: String?.self), fed <= occurrence {
                appends.append(
                    (
                        try row.decode(column: "app_id", as: String.self), try row.decode(column: "channel", as: String.self), id,
                        try row.decode(column: "publisher_id", as: String?.self), content
                    ))
                fed = occurrence + 1
            }
            var ranges: [(after: Int64, upTo: Int64?)] = [(0, nil)]
            let singlecast = try row.decode(column: "singlecast", as: String?.self) != nil
            let broadcasts = try row.decode(column: "live_activity", as: String?.self).map {
                try JSONDecoder().decode(LiveActivityTarget.self, from: Data($0.utf8)).broadcast != nil
            }
            if splits(
                slicing, singlecast: singlecast, pushes: try row.decode(column: "contents", as: String?.self) != nil,
                broadcasts: broadcasts ?? false)
            {
                let keys: RecipientKeys? =
                    try row.decode(column: "audience_channels", as: String?.self) != nil
                    ? .ofApp(try row.decode(column: "app_id", as: String.self))
                    : try row.decode(column: "channel_id", as: Int64?.self).map(RecipientKeys.ofChannel(id:))
                ranges = try await sliceRanges(db, keys: keys, slicing: slicing)
            }
            // Every slice in one statement, and the message marked running: in the same statement on
            // PostgreSQL (a data-modifying CTE, one round trip fewer), in a second one on SQLite.
            let insert = slicesInsert(id: id, occurrence: occurrence, ranges: ranges, now: now)
            let running: SQLQueryString = """
                UPDATE messages SET status = 'running', pending = 0, fed_occurrences = \(bind: fed), updated_at = \(now)
                WHERE id = \(bind: id)
                """
            if dialect.kind == .postgres {
                try await db.raw("WITH slices AS (\(insert)) \(running)").run()
            } else {
                try await db.raw(insert).run()
                try await db.raw(running).run()
            }
        }
        appends.sort { ($0.app, $0.channel) < ($1.app, $1.channel) }
        for append in appends {
            try await PubSubFeed.append(
                db, app: append.app, channel: append.channel, messageId: append.id, publisherId: append.publisher,
                content: append.content, publishedAt: publishedAt)
        }
        return try appends.map { ($0.app, try ChannelName(validating: $0.channel)) }
    }

    /// Whether an occurrence is split into slices: a message to a channel that pushes, when slicing allows
    /// more than one, unless its service fans it out itself (a Live Activity event to an APNs broadcast
    /// channel is one request, whatever the channel holds: no recipients to count or split).
    static func splits(_ slicing: Slicing, singlecast: Bool, pushes: Bool, broadcasts: Bool) -> Bool {
        slicing.maxSlices > 1 && !singlecast && pushes && !broadcasts
    }

    /// The INSERT of an occurrence's slices, one per range, each from the start of its range; with `lease`,
    /// the first is leased to its owner for its milliseconds (a publish that sends its message itself).
    static func slicesInsert(
        id: String, occurrence: Int64, ranges: [(after: Int64, upTo: Int64?)], now: SQLQueryString,
        lease: (owner: String, milliseconds: Int64)? = nil
    ) -> SQLQueryString {
        let rows = ranges.enumerated().map { index, range in
            let leased: SQLQueryString =
                if let lease, index == 0 { "\(bind: lease.owner), \(now) + \(bind: lease.milliseconds)" } else { "NULL, NULL" }
            return """
                (\(bind: id), \(bind: index), \(bind: range.after), \(bind: range.upTo), \(bind: range.after), \(bind: occurrence), \(leased), \(now), \(now))
                """ as SQLQueryString
        }.joined(separator: ", ")
        return """
            INSERT INTO message_slices (message_id, slice, after_key, up_to_key, fanout_cursor, occurrence, lease_owner, lease_until,
                created_at, updated_at)
            VALUES \(rows)
            """
    }

    /// Equal key ranges over `keys`: the channel's registrations, or (a template's audience of several
    /// channels or all) the app's devices; one range when there are none (an app without the channel). The
    /// count is capped at what `maxSlices` full slices hold, so a huge channel costs no more to split than a
    /// large one. (The channel's id comes bound, from the due query: PostgreSQL plans a bound id with the
    /// channel's own statistics, and a subquery's result as any channel.)
    static func sliceRanges(_ db: any SQLDatabase, keys: RecipientKeys?, slicing: Slicing) async throws -> [(
        after: Int64, upTo: Int64?
    )] {
        guard let keys, let span = try await keys.span(db, countingUpTo: slicing.maxSlices * slicing.sliceSize)
        else { return [(0, nil)] }
        let (low, high, members) = (span.keys.lowerBound, span.keys.upperBound, span.count)
        let count = min(slicing.maxSlices, max(1, (members + slicing.sliceSize - 1) / slicing.sliceSize))
        guard count > 1 else { return [(0, nil)] }
        let width = max(1, (high - low + 1 + Int64(count) - 1) / Int64(count))
        return (0..<count).map { index in
            let after = index == 0 ? 0 : low - 1 + Int64(index) * width
            let upTo: Int64? = index == count - 1 ? nil : low - 1 + Int64(index + 1) * width
            return (after, upTo)
        }
    }
}
