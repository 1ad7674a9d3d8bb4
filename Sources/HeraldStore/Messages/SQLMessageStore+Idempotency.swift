import HeraldCore
import SQLKit

/// Publishes' idempotency keys (`idempotency_keys`, migration 0026): written in the transaction that inserts
/// their message, read before a keyed publish, and pruned by the sweeper once expired.
///
/// Expiry is judged by the publisher's clock (`now` of the publish and the sweep), not the database's: a
/// day-long lifetime makes seconds of skew between instances immaterial, and the test clock drives it.
extension SQLMessageStore {
    public func idempotencyRecord(app: String, key: String, now: Timestamp) async throws -> IdempotencyRecord? {
        let expired = IdempotencyRecord.expiredAtOrBefore(now).milliseconds
        return try await backend.read { db in
            guard
                let row = try await db.raw(
                    """
                    SELECT request_hash, message_id, status, body, created_at FROM idempotency_keys
                    WHERE app_id = \(bind: app) AND idempotency_key = \(bind: key) AND created_at > \(bind: expired)
                    """
                ).first()
            else { return nil }
            return IdempotencyRecord(
                app: app, key: key, requestHash: try row.decode(column: "request_hash", as: String.self),
                messageId: try row.decode(column: "message_id", as: String.self), status: try row.decode(column: "status", as: Int.self),
                body: try row.decode(column: "body", as: String.self),
                createdAt: Timestamp(milliseconds: try row.decode(column: "created_at", as: Int64.self)))
        }
    }

    public func pruneIdempotencyKeys(now: Timestamp, batchSize: Int, app: String?) async throws -> Int {
        let expired = IdempotencyRecord.expiredAtOrBefore(now).milliseconds
        let ofApp: SQLQueryString = app.map { "AND app_id = \(bind: $0)" } ?? ""
        let limit = max(1, batchSize)
        var pruned = 0
        while true {
            let deleted = try await backend.write { db in
                try await db.raw(
                    """
                    DELETE FROM idempotency_keys WHERE (app_id, idempotency_key) IN (
                        SELECT app_id, idempotency_key FROM idempotency_keys
                        WHERE created_at <= \(bind: expired) \(ofApp)
                        ORDER BY created_at LIMIT \(literal: limit))
                    RETURNING created_at
                    """
                ).all().count
            }
            pruned += deleted
            if deleted < limit { return pruned }
        }
    }

    /// Takes `record`'s key for `message`, first in the transaction that inserts the message, so that the key
    /// exists iff the message does. An expired record of the key is replaced; a live one throws
    /// `IdempotencyKeyTaken`, rolling the transaction back. On PostgreSQL a concurrent transaction that took the
    /// key and has not ended makes this statement wait for its end: then the key is taken (it committed) or
    /// free (it rolled back), never both publishes'.
    func takeIdempotencyKey(_ db: any SQLDatabase, _ record: IdempotencyRecord, for message: StoredMessage) async throws {
        guard record.messageId == message.id, record.app == message.app else {
            throw StoreInvariantViolation("an idempotency record written with another message than its own")
        }
        let expired = IdempotencyRecord.expiredAtOrBefore(record.createdAt).milliseconds
        let taken = try await db.raw(
            """
            INSERT INTO idempotency_keys (app_id, idempotency_key, request_hash, message_id, status, body, created_at)
            VALUES (\(bind: record.app), \(bind: record.key), \(bind: record.requestHash), \(bind: record.messageId),
                \(bind: record.status), \(bind: record.body), \(bind: record.createdAt.milliseconds))
            ON CONFLICT (app_id, idempotency_key) DO UPDATE SET
                request_hash = excluded.request_hash, message_id = excluded.message_id, status = excluded.status,
                body = excluded.body, created_at = excluded.created_at
            WHERE idempotency_keys.created_at <= \(bind: expired)
            RETURNING message_id
            """
        ).first()
        if taken == nil { throw IdempotencyKeyTaken() }
    }
}
