import HeraldCore
import SQLKit

/// `WebhookOutboxStore` on the shared SQL backends. Claims skip rows another instance has locked
/// (PostgreSQL), and a claim's lease uses the store's clock like the fan-out's.
public struct SQLWebhookOutbox: WebhookOutboxStore {
    let backend: any SQLBackend
    let clock: StoreClock

    public init(backend: any SQLBackend, clock: StoreClock? = nil) {
        self.backend = backend
        self.clock = clock ?? backend.leaseClock
    }

    public func claimEvents(owner: String, now: Timestamp, leaseMilliseconds: Int64, limit: Int) async throws -> [OutboxEvent] {
        try await backend.write { db in
            let dialect = StoreDialect(db)
            let now = clock.now(now, dialect)
            let rows = try await db.raw(
                """
                SELECT id FROM webhook_events
                WHERE next_attempt_at <= \(now) AND (lease_until IS NULL OR lease_until <= \(now))
                ORDER BY next_attempt_at, id LIMIT \(literal: limit)\(dialect.skipLocked())
                """
            ).all()
            let ids: [any Encodable & Sendable] = try rows.map { try $0.decode(column: "id", as: Int64.self) }
            guard !ids.isEmpty else { return [] }
            return try await db.raw(
                """
                UPDATE webhook_events SET lease_owner = \(bind: owner), lease_until = \(now) + \(bind: leaseMilliseconds)
                WHERE id IN (\(binds: ids))
                RETURNING id, event_id, app_id, type, payload, attempts
                """
            ).all().map { row in
                OutboxEvent(
                    key: try row.decode(column: "id", as: Int64.self), eventId: try row.decode(column: "event_id", as: String.self),
                    app: try row.decode(column: "app_id", as: String.self), type: try row.decode(column: "type", as: String.self),
                    payload: try row.decode(column: "payload", as: String.self), attempts: try row.decode(column: "attempts", as: Int.self))
            }.sorted { $0.key < $1.key }
        }
    }

    public func acknowledge(_ id: Int64, owner: String) async throws {
        try await backend.write { db in
            try await db.raw("DELETE FROM webhook_events WHERE id = \(bind: id) AND lease_owner = \(bind: owner)").run()
        }
    }

    public func retry(_ id: Int64, owner: String, now: Timestamp, delayMilliseconds: Int64, error: String) async throws {
        try await backend.write { db in
            let now = clock.now(now, StoreDialect(db))
            try await db.raw(
                """
                UPDATE webhook_events SET attempts = attempts + 1, next_attempt_at = \(now) + \(bind: delayMilliseconds),
                    last_error = \(bind: String(error.prefix(500))), lease_owner = NULL, lease_until = NULL
                WHERE id = \(bind: id) AND lease_owner = \(bind: owner)
                """
            ).run()
        }
    }

    public func pendingEvents(app: String) async throws -> Int {
        try await backend.read { db in
            try await db.raw("SELECT COUNT(*) AS n FROM webhook_events WHERE app_id = \(bind: app)").first()?
                .decode(column: "n", as: Int.self) ?? 0
        }
    }

    public func backlog(app: String) async throws -> WebhookBacklog {
        try await backend.read { db in
            guard
                let row = try await db.raw(
                    """
                    SELECT COUNT(*) AS pending, MIN(created_at) AS oldest, MIN(next_attempt_at) AS next, MAX(attempts) AS attempts
                    FROM webhook_events WHERE app_id = \(bind: app)
                    """
                ).first()
            else { return WebhookBacklog() }
            let pending = try row.decode(column: "pending", as: Int.self)
            guard pending > 0 else { return WebhookBacklog() }
            let lastError = try await db.raw(
                """
                SELECT last_error FROM webhook_events WHERE app_id = \(bind: app) AND last_error IS NOT NULL
                ORDER BY attempts DESC, id LIMIT 1
                """
            ).first().map { try $0.decode(column: "last_error", as: String.self) }
            return WebhookBacklog(
                pending: pending, oldestCreatedAt: try row.decode(column: "oldest", as: Int64?.self).map(Timestamp.init(milliseconds:)),
                nextAttemptAt: try row.decode(column: "next", as: Int64?.self).map(Timestamp.init(milliseconds:)),
                mostAttempts: try row.decode(column: "attempts", as: Int?.self) ?? 0, lastError: lastError)
        }
    }
}
