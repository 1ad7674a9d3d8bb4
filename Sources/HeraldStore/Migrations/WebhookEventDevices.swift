import HeraldCore
import SQLKit

/// Migration 0011's backfill: the device of each event already waiting in the outbox, read from its
/// payload (`data.deviceId`), so that erasing the device erases those events too.
enum WebhookEventDevices {
    static let pageSize = 1000

    @Sendable static func backfill(_ db: any SQLDatabase, _ progress: BackfillProgress) async throws {
        let events = try await db.raw("SELECT COUNT(*) AS n FROM webhook_events WHERE device_id IS NULL")
            .first()?.decode(column: "n", as: Int.self)
        progress.expect(events ?? 0)
        var after: Int64 = 0
        while true {
            let rows = try await db.raw(
                """
                SELECT id, payload FROM webhook_events WHERE id > \(bind: after) AND device_id IS NULL
                ORDER BY id LIMIT \(bind: pageSize)
                """
            ).all()
            guard !rows.isEmpty else { return }
            for row in rows {
                let id = try row.decode(column: "id", as: Int64.self)
                after = id
                let payload = try row.decode(column: "payload", as: String.self)
                guard let event = try? JSONValue.parse(Array(payload.utf8)), case .object(let fields) = event,
                    case .object(let data)? = fields["data"], case .string(let device)? = data["deviceId"]
                else { continue }
                try await db.raw("UPDATE webhook_events SET device_id = \(bind: device) WHERE id = \(bind: id)").run()
            }
            progress.advance(by: rows.count)
        }
    }
}
