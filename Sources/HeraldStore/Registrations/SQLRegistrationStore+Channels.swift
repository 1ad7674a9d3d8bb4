import HeraldCore
import SQLKit

extension SQLRegistrationStore {
    public func deleteChannel(app: String, name: ChannelName) async throws -> Bool {
        try await backend.write { db in
            let deleted = try await db.raw("""
                DELETE FROM channels WHERE app_id = \(bind: app) AND name = \(bind: name.rawValue) RETURNING id
                """).all()
            guard !deleted.isEmpty else { return false }
            // Registrations went with the channel (ON DELETE CASCADE); devices left with none are gone.
            try await db.raw("""
                DELETE FROM devices WHERE app_id = \(bind: app)
                  AND NOT EXISTS (SELECT 1 FROM registrations r WHERE r.device_id = devices.id)
                """).run()
            return true
        }
    }

    public func channels(app: String, now: Timestamp) async throws -> [ChannelSummary] {
        try await backend.read { db in
            let rows = try await db.raw("""
                SELECT c.name, COUNT(r.id) AS live
                FROM channels c
                LEFT JOIN registrations r ON r.channel_id = c.id
                     AND (r.expires_at IS NULL OR r.expires_at > \(bind: now.milliseconds))
                WHERE c.app_id = \(bind: app)
                GROUP BY c.id, c.name
                ORDER BY c.name
                """).all()
            return try rows.map { row in
                ChannelSummary(name: try ChannelName(validating: try row.decode(column: "name", as: String.self)),
                               registrations: try row.decode(column: "live", as: Int.self))
            }
        }
    }

    public func members(app: String, channel: ChannelName, after cursor: Int64, limit: Int, now: Timestamp) async throws -> [ChannelMember] {
        try await backend.read { db in
            let rows = try await db.raw("""
                SELECT r.device_id AS cursor, d.device_id AS device_key, d.device_token, d.os, r.expires_at
                FROM registrations r JOIN devices d ON d.id = r.device_id
                WHERE r.channel_id = (SELECT id FROM channels WHERE app_id = \(bind: app) AND name = \(bind: channel.rawValue))
                  AND r.device_id > \(bind: cursor)
                  AND (r.expires_at IS NULL OR r.expires_at > \(bind: now.milliseconds))
                  AND d.is_active = \(bind: true)
                ORDER BY r.device_id
                LIMIT \(bind: limit)
                """).all()
            return try rows.map { row in
                ChannelMember(
                    cursor: try row.decode(column: "cursor", as: Int64.self),
                    deviceId: try row.decode(column: "device_key", as: String.self),
                    deviceToken: try row.decode(column: "device_token", as: String.self),
                    os: try DeviceOS(parsing: try row.decode(column: "os", as: String.self)),
                    expiration: try row.decode(column: "expires_at", as: Int64?.self).map(Timestamp.init(milliseconds:)))
            }
        }
    }
}
