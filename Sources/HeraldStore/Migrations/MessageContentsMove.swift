import HeraldCore
import SQLKit

/// Migration 0013's backfill: each stored message's APNs columns (payload, push type, priority,
/// expiration, collapse id) moved into its `contents` JSON as the `apns` content, so every provider's
/// content lives in one place; 0014 then drops the old columns.
enum MessageContentsMove {
    static let pageSize = 1000

    @Sendable static func backfill(_ db: any SQLDatabase, _ progress: BackfillProgress) async throws {
        let messages = try await db.raw("SELECT COUNT(*) AS n FROM messages WHERE payload IS NOT NULL AND contents IS NULL")
            .first()?.decode(column: "n", as: Int.self)
        progress.expect(messages ?? 0)
        var after = ""
        while true {
            let rows = try await db.raw(
                """
                SELECT id, payload, push_type, priority, apns_expiration, collapse_id FROM messages
                WHERE id > \(bind: after) AND payload IS NOT NULL AND contents IS NULL
                ORDER BY id LIMIT \(bind: pageSize)
                """
            ).all()
            guard !rows.isEmpty else { return }
            for row in rows {
                let id = try row.decode(column: "id", as: String.self)
                after = id
                let apns = APNsContent(
                    payload: Array(try row.decode(column: "payload", as: String.self).utf8),
                    pushType: try row.decode(column: "push_type", as: String?.self) ?? "alert",
                    priority: try row.decode(column: "priority", as: Int?.self),
                    expiration: try row.decode(column: "apns_expiration", as: Int64?.self),
                    collapseId: try row.decode(column: "collapse_id", as: String?.self))
                let contents = MessageContents(apns: apns).encoded()
                try await db.raw("UPDATE messages SET contents = \(bind: contents) WHERE id = \(bind: id)").run()
            }
            progress.advance(by: rows.count)
        }
    }
}
