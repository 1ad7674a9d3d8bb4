import HeraldCore
import SQLKit

extension SQLMessageStore {
    /// Slices of a cancelled or failed message that nobody holds (their owner died or stopped): their
    /// counts go to the message and they go away; their pending count is dropped, nothing is sending it.
    /// The rows are not locked when listed: the message row is locked first, as `finishSlice` does, and a
    /// slice another claimer folded meanwhile is simply not deleted (and not counted) again.
    func foldAbandonedSlices(_ db: any SQLDatabase, now: SQLQueryString, at: Int64) async throws {
        let abandoned = try await db.raw(
            """
            SELECT s.message_id, s.slice FROM message_slices s JOIN messages m ON m.id = s.message_id
            WHERE m.status NOT IN ('scheduled', 'running') AND (s.lease_until IS NULL OR s.lease_until < \(now))
            LIMIT 100
            """
        ).all()
        for row in abandoned {
            let id = try row.decode(column: "message_id", as: String.self)
            try await Self.lockMessage(db, id: id, now: now)
            try await fold(db, id: id, slices: "slice = \(bind: try row.decode(column: "slice", as: Int.self))", now: now, at: at)
        }
    }

    /// Touches the message row, which locks it until the transaction ends (PostgreSQL). Every write that
    /// folds or finishes slices takes this lock first, so they take their locks in one order and see each
    /// other's deletes: of two instances finishing the last two slices, the second ends the occurrence.
    static func lockMessage(_ db: any SQLDatabase, id: String, now: SQLQueryString) async throws {
        try await db.raw("UPDATE messages SET updated_at = \(now) WHERE id = \(bind: id)").run()
    }

    /// Adds the counts of the message's slices that `slices` selects to the message and deletes them.
    /// When none is left, the occurrence is over: `occurrences` goes up by one, and a message that ended
    /// early (failed or cancelled) gets its `message.finished` event here, with its final counts.
    func fold(_ db: any SQLDatabase, id: String, slices: SQLQueryString, now: SQLQueryString, at: Int64) async throws {
        let columns = Self.countColumns.filter { $0 != "pending" }
        let folded = try await db.raw(
            """
            DELETE FROM message_slices WHERE message_id = \(bind: id) AND \(slices)
            RETURNING \(unsafeRaw: columns.joined(separator: ", "))
            """
        ).all()
        guard !folded.isEmpty else { return }
        try await foldProviderCounts(db, id: id)
        var sums = [Int64](repeating: 0, count: columns.count)
        for row in folded {
            for (index, column) in columns.enumerated() {
                sums[index] += try row.decode(column: column, as: Int64.self)
            }
        }
        let additions = zip(columns, sums).map { column, sum -> SQLQueryString in
            "\(unsafeRaw: column) = \(unsafeRaw: column) + \(bind: sum)"
        }.joined(separator: ", ")
        let remaining = try await db.raw("SELECT COUNT(*) AS remaining FROM message_slices WHERE message_id = \(bind: id)").first()
        let over: Int64 = try remaining?.decode(column: "remaining", as: Int.self) == 0 ? 1 : 0
        let ended = try await db.raw(
            """
            UPDATE messages SET \(additions),
                occurrences = occurrences + \(bind: over), pending = 0, updated_at = \(now)
            WHERE id = \(bind: id)
            RETURNING status, occurrences, error_message
            """
        ).first()
        if over == 1, let ended, let status = MessageStatus(rawValue: try ended.decode(column: "status", as: String.self)),
            status == .failed || status == .cancelled
        {
            try await appendFinished(
                db, id: id, occurrence: try ended.decode(column: "occurrences", as: Int64.self) - 1, status: status,
                error: try ended.decode(column: "error_message", as: String?.self), at: at)
        }
    }

    /// The counts by provider of slices that are gone (just folded) go to the message's row of each
    /// provider (slice -1), in the fold's transaction: one statement adds them, one deletes them.
    func foldProviderCounts(_ db: any SQLDatabase, id: String) async throws {
        let gone: SQLQueryString = """
            message_id = \(bind: id) AND slice >= 0
              AND slice NOT IN (SELECT slice FROM message_slices WHERE message_id = \(bind: id))
            """
        try await db.raw(
            """
            INSERT INTO message_counts (message_id, slice, provider, sent, failed, tokens_removed, tokens_deactivated)
            SELECT message_id, -1, provider, SUM(sent), SUM(failed), SUM(tokens_removed), SUM(tokens_deactivated)
            FROM message_counts WHERE \(gone) GROUP BY message_id, provider
            \(unsafeRaw: Self.addToProviderCounts)
            """
        ).run()
        try await db.raw("DELETE FROM message_counts WHERE \(gone)").run()
    }

    /// The upsert tail that adds a new row of `message_counts` to the one already there.
    static let addToProviderCounts = """
        ON CONFLICT (message_id, slice, provider) DO UPDATE SET
            sent = message_counts.sent + excluded.sent, failed = message_counts.failed + excluded.failed,
            tokens_removed = message_counts.tokens_removed + excluded.tokens_removed,
            tokens_deactivated = message_counts.tokens_deactivated + excluded.tokens_deactivated
        """

    public func checkpoint(
        _ checkpoint: FanOutCheckpoint, owner: String, now: Timestamp,
        leaseMilliseconds: Int64
    ) async throws -> MessageStatus? {
        let recordedAt = now.milliseconds
        return try await backend.write { db in
            let now = clock.now(now, StoreDialect(db))
            // The lease first: a writer that lost it changes nothing, not even token hygiene.
            let sequenceTest: SQLQueryString = checkpoint.sequence.map { " AND checkpoint_seq = \(bind: $0)" } ?? ""
            guard
                try await db.raw(
                    """
                    UPDATE message_slices SET lease_until = \(now) + \(bind: leaseMilliseconds), updated_at = \(now),
                        checkpoint_seq = checkpoint_seq + 1
                    WHERE message_id = \(bind: checkpoint.messageId) AND slice = \(bind: checkpoint.slice)
                      AND occurrence = \(bind: checkpoint.occurrence) AND lease_owner = \(bind: owner)\(sequenceTest)
                    RETURNING slice
                    """
                ).first() != nil
            else {
                // Not written: the lease is lost, or this very checkpoint was recorded already (its first
                // write committed but the answer was lost) and must not be counted again.
                guard let sequence = checkpoint.sequence,
                    let row = try await db.raw(
                        """
                        SELECT checkpoint_seq FROM message_slices
                        WHERE message_id = \(bind: checkpoint.messageId) AND slice = \(bind: checkpoint.slice)
                          AND occurrence = \(bind: checkpoint.occurrence) AND lease_owner = \(bind: owner)
                        """
                    ).first(), try row.decode(column: "checkpoint_seq", as: Int64.self) == sequence + 1
                else { return nil }
                return try await Self.status(db, id: checkpoint.messageId)
            }
            try await Self.recordDeliveries(db, checkpoint, at: recordedAt)
            var byProvider = checkpoint.byProvider
            var removed: Int64 = 0
            // In key order, as the sweep locks devices (`StoreDialect.lockDevices`), so the two cannot deadlock.
            for removal in checkpoint.remove.sorted(by: { $0.deviceKey < $1.deviceKey }) {
                if removal.liveActivity {
                    let rows = try await LiveActivityTokens.delete(db, deviceKey: removal.deviceKey, token: removal.deviceToken)
                    removed += Int64(rows)
                    byProvider[removal.provider, default: ProviderCounts()].tokensRemoved += Int64(rows)
                    continue
                }
                // Registrations go with the device (ON DELETE CASCADE). With the history on, its key is kept
                // whatever its history holds yet: other fan-outs reaching it may still write some.
                let rows = try await RetiredDeviceKeys.deleteDevices(
                    db,
                    where: """
                        id = \(bind: removal.deviceKey) AND device_token = \(bind: removal.deviceToken)
                          AND last_seen_at <= \(bind: removal.invalidSince?.milliseconds ?? Int64.max)
                        """,
                    always: !checkpoint.deliveries.isEmpty)
                removed += Int64(rows.count)
                byProvider[removal.provider, default: ProviderCounts()].tokensRemoved += Int64(rows.count)
                for row in rows {
                    try await events.append(
                        db, app: row.app, type: .deviceTokenRemoved,
                        data: Self.deviceEvent(
                            deviceId: row.deviceId, token: removal.deviceToken, message: checkpoint.messageId, reason: removal.reason),
                        at: recordedAt)
                }
            }
            var deactivated: Int64 = 0
            for deactivation in checkpoint.deactivate.sorted(by: { $0.deviceKey < $1.deviceKey }) {
                let by = DeactivatedBy.provider(deactivation.provider)
                let rows = try await db.raw(
                    """
                    UPDATE devices SET is_active = \(bind: false), deactivated_by = \(bind: by.rawValue)
                    WHERE id = \(bind: deactivation.deviceKey) AND device_token = \(bind: deactivation.deviceToken)
                      AND is_active = \(bind: true)
                    RETURNING app_id, device_id
                    """
                ).all()
                deactivated += Int64(rows.count)
                byProvider[deactivation.provider, default: ProviderCounts()].tokensDeactivated += Int64(rows.count)
                for row in rows {
                    var data = try Self.deviceEvent(
                        row, token: deactivation.deviceToken, message: checkpoint.messageId, reason: deactivation.reason)
                    data["by"] = .string(by.rawValue)
                    try await events.append(
                        db, app: try row.decode(column: "app_id", as: String.self), type: .deviceDeactivated, data: data, at: recordedAt)
                }
            }
            try await db.raw(
                """
                UPDATE message_slices SET
                    fanout_cursor = COALESCE(\(bind: checkpoint.cursor), fanout_cursor),
                    sent = sent + \(bind: checkpoint.sent), failed = failed + \(bind: checkpoint.failed),
                    pending = \(bind: checkpoint.pending),
                    tokens_removed = tokens_removed + \(bind: removed),
                    tokens_deactivated = tokens_deactivated + \(bind: deactivated)
                WHERE message_id = \(bind: checkpoint.messageId) AND slice = \(bind: checkpoint.slice)
                """
            ).run()
            // Sorted, so concurrent writers lock rows in one order.
            for (provider, counts) in byProvider.sorted(by: { $0.key.rawValue < $1.key.rawValue }) where !counts.isZero {
                try await db.raw(
                    """
                    INSERT INTO message_counts (message_id, slice, provider, sent, failed, tokens_removed, tokens_deactivated)
                    VALUES (\(bind: checkpoint.messageId), \(bind: checkpoint.slice), \(bind: provider.rawValue), \(bind: counts.sent),
                        \(bind: counts.failed), \(bind: counts.tokensRemoved), \(bind: counts.tokensDeactivated))
                    \(unsafeRaw: Self.addToProviderCounts)
                    """
                ).run()
            }
            try await Self.recordStats(db, checkpoint, byProvider: byProvider, at: recordedAt)
            return try await Self.status(db, id: checkpoint.messageId)
        }
    }

    static func status(_ db: any SQLDatabase, id: String) async throws -> MessageStatus? {
        let row = try await db.raw("SELECT status FROM messages WHERE id = \(bind: id)").first()
        return try row.flatMap { MessageStatus(rawValue: try $0.decode(column: "status", as: String.self)) }
    }

    @discardableResult
    public func finishSlice(
        id: String, slice: Int, occurrence: Int64, owner: String, next: Timestamp?, failure: String?,
        now: Timestamp
    ) async throws -> MessageStatus? {
        let recordedAt = now.milliseconds
        return try await backend.write { db -> MessageStatus? in
            let now = clock.now(now, StoreDialect(db))
            try await Self.lockMessage(db, id: id, now: now)
            guard
                try await db.raw(
                    """
                    UPDATE message_slices SET done = \(bind: true), pending = 0, lease_owner = NULL, lease_until = NULL, updated_at = \(now)
                    WHERE message_id = \(bind: id) AND slice = \(bind: slice) AND occurrence = \(bind: occurrence)
                      AND lease_owner = \(bind: owner)
                    RETURNING slice
                    """
                ).first() != nil
            else { return nil }
            var failed = false
            if let failure {
                failed =
                    try await db.raw(
                        """
                        UPDATE messages SET status = 'failed', error_message = \(bind: failure), due_at = NULL
                        WHERE id = \(bind: id) AND status = 'running'
                        RETURNING id
                        """
                    ).first() != nil
            }
            let status = try await db.raw("SELECT status FROM messages WHERE id = \(bind: id)").first()
                .map { try $0.decode(column: "status", as: String.self) }
            guard status == MessageStatus.running.rawValue else {
                // Cancelled or failed: this slice's counts go to the message now; the others' as they stop.
                try await fold(db, id: id, slices: "done = \(bind: true)", now: now, at: recordedAt)
                return failed ? .failed : nil
            }
            let open = try await db.raw(
                """
                SELECT COUNT(*) AS open FROM message_slices WHERE message_id = \(bind: id) AND done = \(bind: false)
                """
            ).first()
            guard try open?.decode(column: "open", as: Int.self) == 0 else { return nil }
            try await fold(db, id: id, slices: "done = \(bind: true)", now: now, at: recordedAt)
            let ended: MessageStatus = next == nil ? .published : .scheduled
            try await db.raw(
                """
                UPDATE messages SET status = \(bind: ended.rawValue), due_at = \(bind: next?.milliseconds)
                WHERE id = \(bind: id) AND status = 'running'
                """
            ).run()
            try await appendFinished(db, id: id, occurrence: occurrence, status: ended, error: nil, at: recordedAt)
            return ended == .published ? .published : nil
        }
    }

    public func release(owner: String, now: Timestamp) async throws {
        try await backend.write { db in
            try await db.raw(
                """
                UPDATE message_slices SET lease_owner = NULL, lease_until = NULL, pending = 0, updated_at = \(clock.now(now, StoreDialect(db)))
                WHERE lease_owner = \(bind: owner)
                """
            ).run()
        }
    }

    public func releaseAll(now: Timestamp) async throws {
        try await backend.write { db in
            try await db.raw(
                """
                UPDATE message_slices SET lease_owner = NULL, lease_until = NULL, pending = 0, updated_at = \(clock.now(now, StoreDialect(db)))
                WHERE lease_owner IS NOT NULL
                """
            ).run()
        }
    }
}
