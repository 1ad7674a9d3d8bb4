import HeraldCore
import SQLKit

extension SQLRegistrationStore {
    /// Registrations of a deleted channel removed per transaction, so deleting a channel of millions of
    /// devices never holds a long transaction (or SQLite's write lock) and registrations keep flowing.
    static let channelDeleteBatch = 5_000

    public func deleteChannel(app: String, name: ChannelName) async throws -> Bool {
        let channel: Int64? = try await backend.read { db in
            try await db.raw("SELECT id FROM channels WHERE app_id = \(bind: app) AND name = \(bind: name.rawValue)").first()
                .map { try $0.decode(column: "id", as: Int64.self) }
        }
        guard let channel else { return false }
        // Empty the channel batch by batch (devices left with no registration go too), then delete it;
        // the last step also takes anything registered into it meanwhile (ON DELETE CASCADE).
        while true {
            let removed = try await backend.write { db in
                let rows = try await db.raw(
                    """
                    DELETE FROM registrations WHERE id IN (
                        SELECT id FROM registrations WHERE channel_id = \(bind: channel) LIMIT \(bind: Self.channelDeleteBatch))
                    RETURNING device_id
                    """
                ).all()
                try await Self.deleteOrphans(db, among: Set(try rows.map { try $0.decode(column: "device_id", as: Int64.self) }))
                return rows.count
            }
            if removed < Self.channelDeleteBatch { break }
        }
        return try await backend.write { db in
            let rows = try await db.raw(
                """
                DELETE FROM registrations WHERE channel_id = \(bind: channel) RETURNING device_id
                """
            ).all()
            let deleted = try await db.raw("DELETE FROM channels WHERE id = \(bind: channel) RETURNING id").all()
            try await Self.deleteOrphans(db, among: Set(try rows.map { try $0.decode(column: "device_id", as: Int64.self) }))
            return !deleted.isEmpty
        }
    }

    /// The app's channels after `after` (nil: from the first) in byte order of their names, at most
    /// `limit`, each with its live registrations. The order is the names' bytes, not a database collation
    /// (PostgreSQL's would depend on the cluster's locale), so a cursor means the same on both backends;
    /// PostgreSQL reads it from an index in that order (migration 0016).
    public func channels(app: String, after: ChannelName?, limit: Int, now: Timestamp) async throws -> [ChannelSummary] {
        guard limit > 0 else { return [] }
        let name = SQLRaw(backend.dialect.kind == .postgres ? #"name COLLATE "C""# : "name")
        let start = after.map { SQLQueryString("AND \(name) > \(bind: $0.rawValue)") } ?? ""
        return try await backend.read { db in
            let rows = try await db.raw(
                """
                SELECT p.name,
                       (SELECT COUNT(*) FROM registrations r WHERE r.channel_id = p.id
                          AND (r.expires_at IS NULL OR r.expires_at > \(bind: now.milliseconds))) AS live
                FROM (SELECT id, \(name) AS name FROM channels WHERE app_id = \(bind: app) \(start)
                      ORDER BY \(name) LIMIT \(bind: limit)) p
                ORDER BY p.name
                """
            ).all()
            // Sorted here too: the outer ORDER BY follows the column's own collation on PostgreSQL.
            return try rows.map { row in
                ChannelSummary(
                    name: try ChannelName(validating: try row.decode(column: "name", as: String.self)),
                    registrations: try row.decode(column: "live", as: Int.self))
            }.sorted { Array($0.name.rawValue.utf8).lexicographicallyPrecedes(Array($1.name.rawValue.utf8)) }
        }
    }

    public func channelPlatforms(app: String, names: [ChannelName], now: Timestamp) async throws -> [ChannelName: [DeviceOS: Int]] {
        guard !names.isEmpty else { return [:] }
        let binds: [any Encodable & Sendable] = names.map(\.rawValue)
        return try await backend.read { db in
            let rows = try await db.raw(
                """
                SELECT c.name, d.os, COUNT(*) AS live
                FROM channels c
                JOIN registrations r ON r.channel_id = c.id AND (r.expires_at IS NULL OR r.expires_at > \(bind: now.milliseconds))
                JOIN devices d ON d.id = r.device_id
                WHERE c.app_id = \(bind: app) AND c.name IN (\(binds: binds))
                GROUP BY c.name, d.os
                """
            ).all()
            var counts: [ChannelName: [DeviceOS: Int]] = [:]
            for row in rows {
                let name = try ChannelName(validating: try row.decode(column: "name", as: String.self))
                guard let os = try? DeviceOS(parsing: try row.decode(column: "os", as: String.self)) else { continue }
                counts[name, default: [:]][os] = try row.decode(column: "live", as: Int.self)
            }
            return counts
        }
    }

    /// The members among the channel's next `limit` live registrations by key: registrations first, then
    /// their devices by primary key, as `recipients` pages (and for the same reason).
    public func members(app: String, channel: ChannelName, after cursor: Int64, limit: Int, now: Timestamp) async throws
        -> KeysetPage<ChannelMember>
    {
        guard limit > 0 else { return KeysetPage(items: [], next: nil) }
        let channel = Self.channelKey(app: app, name: channel)
        return try await backend.read { db in
            let rows = try await db.storeRows(
                """
                SELECT r.device_id AS cursor, d.device_id AS device_key, d.device_token, d.os, r.expires_at
                FROM (SELECT channel_id, device_id, expires_at FROM registrations
                      WHERE (channel_id, device_id) > (\(channel), \(bind: cursor)) AND (channel_id, device_id) <= (\(channel), \(bind: Int64.max))
                        AND (expires_at IS NULL OR expires_at > \(bind: now.milliseconds))
                      ORDER BY channel_id, device_id
                      LIMIT \(bind: limit)) r
                LEFT JOIN devices d ON d.id = r.device_id AND d.is_active = \(bind: true)
                ORDER BY r.device_id
                """, columns: ["cursor", "device_key", "device_token", "os", "expires_at"])
            return try Self.keysetPage(rows, limit: limit) { row, key in
                try row.text(1).map { deviceId in
                    ChannelMember(
                        cursor: key, deviceId: deviceId, deviceToken: try row.requiredText(2),
                        os: try DeviceOS(parsing: try row.requiredText(3)),
                        expiration: try row.optionalInt64(4).map(Timestamp.init(milliseconds:)))
                }
            }
        }
    }
}
