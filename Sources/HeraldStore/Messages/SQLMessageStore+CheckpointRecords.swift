import HeraldCore
import SQLKit

/// What a checkpoint writes beside the counts, in its transaction: the webhook events about devices and
/// finished occurrences, and the devices' delivery history.
extension SQLMessageStore {
    /// A device event's data: the device, its token (the app's backend keys its own table by it), and the
    /// message whose send found out.
    static func deviceEvent(_ row: any SQLRow, token: String, message: String, reason: String?) throws -> [String: JSONValue] {
        deviceEvent(deviceId: try row.decode(column: "device_id", as: String.self), token: token, message: message, reason: reason)
    }

    static func deviceEvent(deviceId: String, token: String, message: String, reason: String?) -> [String: JSONValue] {
        [
            "deviceId": .string(deviceId), "deviceToken": .string(token), "messageId": .string(message),
            "reason": reason.map(JSONValue.string) ?? .null,
        ]
    }

    /// `message.finished` for the occurrence that just ended, with the message's counts as they stand
    /// (the message row and its remaining slices, read in this transaction).
    func appendFinished(
        _ db: any SQLDatabase, id: String, occurrence: Int64, status: MessageStatus, error: String?, at: Int64
    ) async throws {
        guard !events.apps.isEmpty,
            let row = try await db.raw("SELECT app_id, channel FROM messages WHERE id = \(bind: id)").first()
        else { return }
        let app = try row.decode(column: "app_id", as: String.self)
        guard events.apps.contains(app) else { return }
        let counts = try await Self.counts(db, id: id)
        try await events.append(
            db, app: app, type: .messageFinished,
            data: [
                "messageId": .string(id), "channel": .string(try row.decode(column: "channel", as: String.self)),
                "occurrence": .integer(occurrence + 1), "status": .string(status.rawValue),
                "errorMessage": error.map(JSONValue.string) ?? .null,
                "deliveries": counts.json,
            ], at: at)
    }

    /// The closed pages' outcomes into the devices' delivery history, in the checkpoint's transaction:
    /// history and counts never disagree, and a checkpoint that is not written adds no history either.
    /// Filed under each device's row key with its app and device id, so the rows of a page (consecutive
    /// keys) land side by side in `deliveries_by_device_key`, and a device removed for its token keeps
    /// the record of why (`RetiredDeviceKeys`).
    static func recordDeliveries(_ db: any SQLDatabase, _ checkpoint: FanOutCheckpoint, at: Int64) async throws {
        guard !checkpoint.deliveries.isEmpty,
            let app = try await db.raw("SELECT app_id FROM messages WHERE id = \(bind: checkpoint.messageId)").first()?
                .decode(column: "app_id", as: String.self)
        else { return }
        if StoreDialect(db).kind == .postgres {
            // Four arrays bound once for the page rather than seven values per row: each bind costs
            // PostgresKit an Encodable pass, which made history cost a fan-out a fifth of its rate. An
            // empty reason stands for none (no outcome has an empty reason).
            let records = checkpoint.deliveries
            try await db.raw(
                """
                INSERT INTO deliveries (app_id, device_key, device_id, message_id, delivered_at, outcome, reason)
                SELECT \(bind: app), t.device_key, t.device_id, \(bind: checkpoint.messageId), \(bind: at), t.outcome, NULLIF(t.reason, '')
                FROM unnest(\(bind: records.map(\.device.key))::bigint[], \(bind: records.map(\.device.id))::text[],
                            \(bind: records.map(\.outcome.rawValue))::text[], \(bind: records.map { $0.reason ?? "" })::text[])
                     AS t(device_key, device_id, outcome, reason)
                """
            ).run()
            return
        }
        // SQLite: the page as one JSON bind, spread by `json_each`, for the same reason: seven binds a row cost
        // SQLiteKit an Encodable pass each, and SQLite parsed a statement as long as the page every time
        // (about 32,000 instructions a recipient under callgrind, a tenth of a fan-out's). The usual record
        // (sent, no reason) goes in a flat object from key to device id, which `json_each` hands over as
        // its `key` and `value`; only the others need each row's fields taken apart (`json_extract`, about
        // 6,000 instructions a row). In key order, so SQLite's cursor moves forward through the index.
        var sent: [UInt8] = [UInt8(ascii: "{")]
        var others: [UInt8] = [UInt8(ascii: "[")]
        sent.reserveCapacity(checkpoint.deliveries.count * 32)
        for record in checkpoint.deliveries.sorted(by: { $0.device.key < $1.device.key }) {
            if record.outcome == .sent && record.reason == nil {
                if sent.count > 1 { sent.append(UInt8(ascii: ",")) }
                sent.append(UInt8(ascii: "\""))
                sent.append(contentsOf: String(record.device.key).utf8)
                sent.append(contentsOf: "\":".utf8)
                JSONText.appendString(record.device.id, to: &sent)
                continue
            }
            if others.count > 1 { others.append(UInt8(ascii: ",")) }
            others.append(UInt8(ascii: "["))
            others.append(contentsOf: String(record.device.key).utf8)
            others.append(UInt8(ascii: ","))
            JSONText.appendString(record.device.id, to: &others)
            others.append(UInt8(ascii: ","))
            JSONText.appendString(record.outcome.rawValue, to: &others)
            others.append(UInt8(ascii: ","))
            if let reason = record.reason { JSONText.appendString(reason, to: &others) } else { others.append(contentsOf: "null".utf8) }
            others.append(UInt8(ascii: "]"))
        }
        if sent.count > 1 {
            sent.append(UInt8(ascii: "}"))
            try await db.raw(
                """
                INSERT INTO deliveries (app_id, device_key, device_id, message_id, delivered_at, outcome, reason)
                SELECT \(bind: app), CAST(key AS INTEGER), value, \(bind: checkpoint.messageId), \(bind: at),
                       \(bind: DeliveryRecord.Outcome.sent.rawValue), NULL
                FROM json_each(\(bind: String(decoding: sent, as: UTF8.self)))
                """
            ).run()
        }
        if others.count > 1 {
            others.append(UInt8(ascii: "]"))
            try await db.raw(
                """
                INSERT INTO deliveries (app_id, device_key, device_id, message_id, delivered_at, outcome, reason)
                SELECT \(bind: app), json_extract(value, '$[0]'), json_extract(value, '$[1]'), \(bind: checkpoint.messageId),
                       \(bind: at), json_extract(value, '$[2]'), json_extract(value, '$[3]')
                FROM json_each(\(bind: String(decoding: others, as: UTF8.self)))
                """
            ).run()
        }
    }
}
