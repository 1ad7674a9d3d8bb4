import HeraldCore
import SQLKit

extension SQLRegistrationStore {
    /// One page of a message's recipients after `cursor`, by device key: active devices of a listed
    /// operating system with a live registration in the channel (or, for a singlecast, in any channel),
    /// that match the message's segment if it has one.
    public func recipients(
        app: String, filter: RecipientFilter, after cursor: Int64, limit: Int,
        now: Timestamp
    ) async throws -> [Recipient] {
        guard !filter.systems.isEmpty, filter.devices?.isEmpty != true else { return [] }
        let systems: [any Encodable & Sendable] = filter.systems.map(\.rawValue)
        let upTo = filter.upTo ?? Int64.max
        let segment = filter.segment.sqlClause
        return try await backend.read { db in
            let rows: [any SQLRow]
            if let devices = filter.devices {
                let ids: [any Encodable & Sendable] = devices
                rows = try await db.raw(
                    """
                    SELECT d.id AS device_key, d.device_id, d.device_token, d.os
                    FROM devices d
                    WHERE d.app_id = \(bind: app) AND d.device_id IN (\(binds: ids)) AND d.id > \(bind: cursor) AND d.id <= \(bind: upTo)
                      AND d.is_active = \(bind: true) AND d.os IN (\(binds: systems))\(segment)
                      AND EXISTS (SELECT 1 FROM registrations r WHERE r.device_id = d.id
                                  AND (r.expires_at IS NULL OR r.expires_at > \(bind: now.milliseconds)))
                    ORDER BY d.id
                    LIMIT \(bind: limit)
                    """
                ).all()
            } else {
                rows = try await db.raw(
                    """
                    SELECT r.device_id AS device_key, d.device_id, d.device_token, d.os
                    FROM registrations r JOIN devices d ON d.id = r.device_id
                    WHERE r.channel_id = (SELECT id FROM channels WHERE app_id = \(bind: app) AND name = \(bind: filter.channel.rawValue))
                      AND r.device_id > \(bind: cursor) AND r.device_id <= \(bind: upTo)
                      AND (r.expires_at IS NULL OR r.expires_at > \(bind: now.milliseconds))
                      AND d.is_active = \(bind: true) AND d.os IN (\(binds: systems))\(segment)
                    ORDER BY r.device_id
                    LIMIT \(bind: limit)
                    """
                ).all()
            }
            return try rows.map { row in
                Recipient(
                    key: try row.decode(column: "device_key", as: Int64.self),
                    deviceId: try row.decode(column: "device_id", as: String.self),
                    deviceToken: try row.decode(column: "device_token", as: String.self),
                    os: try DeviceOS(parsing: try row.decode(column: "os", as: String.self)))
            }
        }
    }
}
