import HeraldCore
import SQLKit

extension SQLMessageStore {
    public func hasDue(now: Timestamp) async throws -> Bool {
        try await backend.read { db in
            try await db.raw("""
                SELECT 1 AS due FROM messages
                WHERE status IN ('scheduled', 'running') AND due_at <= \(bind: now.milliseconds)
                  AND (lease_until IS NULL OR lease_until < \(bind: now.milliseconds))
                LIMIT 1
                """).first() != nil
        }
    }

    public func claim(owner: String, now: Timestamp, leaseUntil: Timestamp, limit: Int) async throws -> [StoredMessage] {
        try await backend.write { db in
            // The lease test is repeated outside the subquery so that PostgreSQL re-checks it on a row
            // another instance claimed in the meantime.
            let rows = try await db.raw("""
                UPDATE messages SET status = 'running', lease_owner = \(bind: owner), lease_until = \(bind: leaseUntil.milliseconds),
                    pending = 0, updated_at = \(bind: now.milliseconds)
                WHERE id IN (SELECT id FROM messages
                             WHERE status IN ('scheduled', 'running') AND due_at <= \(bind: now.milliseconds)
                               AND (lease_until IS NULL OR lease_until < \(bind: now.milliseconds))
                             ORDER BY due_at LIMIT \(bind: limit))
                  AND (lease_until IS NULL OR lease_until < \(bind: now.milliseconds))
                RETURNING *
                """).all()
            return try rows.map(Self.decode)
        }
    }

    public func checkpoint(_ checkpoint: FanOutCheckpoint, owner: String, now: Timestamp,
                           leaseUntil: Timestamp) async throws -> MessageStatus? {
        try await backend.write { db in
            var removed: Int64 = 0
            for removal in checkpoint.remove {
                // Registrations go with the device (ON DELETE CASCADE).
                let rows = try await db.raw("""
                    DELETE FROM devices WHERE id = \(bind: removal.deviceKey) AND device_token = \(bind: removal.deviceToken)
                      AND last_seen_at <= \(bind: removal.invalidSince?.milliseconds ?? Int64.max)
                    RETURNING id
                    """).all()
                removed += Int64(rows.count)
            }
            var deactivated: Int64 = 0
            for deactivation in checkpoint.deactivate {
                let rows = try await db.raw("""
                    UPDATE devices SET is_active = \(bind: false)
                    WHERE id = \(bind: deactivation.deviceKey) AND device_token = \(bind: deactivation.deviceToken)
                      AND is_active = \(bind: true)
                    RETURNING id
                    """).all()
                deactivated += Int64(rows.count)
            }
            let row = try await db.raw("""
                UPDATE messages SET
                    fanout_cursor = COALESCE(\(bind: checkpoint.cursor), fanout_cursor),
                    sent = sent + \(bind: checkpoint.sent), failed = failed + \(bind: checkpoint.failed),
                    pending = \(bind: checkpoint.pending),
                    tokens_removed = tokens_removed + \(bind: removed),
                    tokens_deactivated = tokens_deactivated + \(bind: deactivated),
                    lease_until = \(bind: leaseUntil.milliseconds), updated_at = \(bind: now.milliseconds)
                WHERE id = \(bind: checkpoint.messageId) AND lease_owner = \(bind: owner)
                RETURNING status
                """).first()
            return try row.flatMap { MessageStatus(rawValue: try $0.decode(column: "status", as: String.self)) }
        }
    }

    public func finishOccurrence(id: String, owner: String, next: Timestamp?, failure: String?, now: Timestamp) async throws {
        let status: MessageStatus = failure != nil ? .failed : (next != nil ? .scheduled : .published)
        try await backend.write { db in
            try await db.raw("""
                UPDATE messages SET
                    status = CASE WHEN status = 'running' THEN \(bind: status.rawValue) ELSE status END,
                    error_message = CASE WHEN status = 'running' THEN \(bind: failure) ELSE error_message END,
                    due_at = CASE WHEN status = 'running' THEN \(bind: failure == nil ? next?.milliseconds : nil) ELSE NULL END,
                    occurrences = occurrences + 1, fanout_cursor = 0, pending = 0,
                    lease_owner = NULL, lease_until = NULL, updated_at = \(bind: now.milliseconds)
                WHERE id = \(bind: id) AND lease_owner = \(bind: owner)
                """).run()
        }
    }

    public func release(owner: String, now: Timestamp) async throws {
        try await backend.write { db in
            try await db.raw("""
                UPDATE messages SET lease_owner = NULL, lease_until = NULL, pending = 0, updated_at = \(bind: now.milliseconds)
                WHERE lease_owner = \(bind: owner)
                """).run()
        }
    }

    public func releaseAll(now: Timestamp) async throws {
        try await backend.write { db in
            try await db.raw("""
                UPDATE messages SET lease_owner = NULL, lease_until = NULL, pending = 0, updated_at = \(bind: now.milliseconds)
                WHERE lease_owner IS NOT NULL
                """).run()
        }
    }
}
