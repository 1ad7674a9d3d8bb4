import Foundation
import HeraldCore
import SQLKit

extension SQLDeviceRegistry {
    public func devices(app: String, filter: DeviceFilter, after cursor: Int64?, limit: Int, scanLimit: Int, now: Timestamp)
        async throws -> DeviceListing
    {
        var conditions: [SQLQueryString] = []
        if let os = filter.os { conditions.append("d.os = \(bind: os.rawValue)") }
        if let active = filter.active { conditions.append("d.is_active = \(bind: active)") }
        if let version = filter.appVersion { conditions.append("d.app_version = \(bind: version)") }
        if let since = filter.seenSince { conditions.append("d.last_seen_at >= \(bind: since.milliseconds)") }
        if let before = filter.seenBefore { conditions.append("d.last_seen_at < \(bind: before.milliseconds)") }
        if let query = filter.query {
            // A substring in any case; % and _ in it are matched as themselves.
            let pattern =
                "%"
                + query.lowercased().replacingOccurrences(of: "\\", with: "\\\\")
                .replacingOccurrences(of: "%", with: "\\%").replacingOccurrences(of: "_", with: "\\_") + "%"
            conditions.append(
                """
                (LOWER(d.device_id) LIKE \(bind: pattern) ESCAPE '\\' OR LOWER(d.install_id) LIKE \(bind: pattern) ESCAPE '\\'
                 OR LOWER(d.device_name) LIKE \(bind: pattern) ESCAPE '\\')
                """)
        }
        let columns = Self.recordColumns.split(separator: ",").map { "d." + $0.trimmingCharacters(in: .whitespacesAndNewlines) }
            .joined(separator: ", ")
        let matching = conditions.isEmpty ? "TRUE" : conditions.joined(separator: " AND ")
        let after = cursor ?? 0
        let channel = filter.channel.map { SQLRegistrationStore.channelKey(app: app, name: $0) }
        let filtered = !conditions.isEmpty || channel != nil
        return try await backend.read { db in
            // The window: the next `scanLimit` candidates by key. A page looks only inside it, so a filter that
            // matches few devices costs a bounded scan per page. Without a filter every device matches and the
            // page's LIMIT bounds the work by itself.
            let windowEnd: Int64?
            let rows: [any SQLRow]
            if let channel {
                // The channel's next live registrations (through the (channel_id, device_id) index, as a
                // fan-out pages), then their devices by primary key, named in a list: joined instead, the planner
                // may hash or merge them with the whole devices table (it did at 300,000 devices).
                let keys = try await db.raw(
                    """
                    SELECT device_id FROM registrations
                    WHERE (channel_id, device_id) > (\(channel), \(bind: after)) AND (channel_id, device_id) <= (\(channel), \(bind: Int64.max))
                      AND (expires_at IS NULL OR expires_at > \(bind: now.milliseconds))
                    ORDER BY channel_id, device_id LIMIT \(literal: max(1, min(scanLimit, RegistrationBatch.maxBinds)))
                    """
                ).all().map { try $0.decode(column: "device_id", as: Int64.self) }
                windowEnd = keys.count >= max(1, min(scanLimit, RegistrationBatch.maxBinds)) ? keys.last : nil
                let binds: [any Encodable & Sendable] = keys
                rows =
                    keys.isEmpty
                    ? []
                    : try await db.raw(
                        """
                        SELECT \(unsafeRaw: columns) FROM devices d
                        WHERE d.id IN (\(binds: binds)) AND d.app_id = \(bind: app) AND \(matching)
                        ORDER BY d.id LIMIT \(literal: limit + 1)
                        """
                    ).all()
            } else {
                windowEnd =
                    filtered
                    ? try await db.raw(
                        """
                        SELECT id FROM devices WHERE app_id = \(bind: app) AND id > \(bind: after)
                        ORDER BY id LIMIT 1 OFFSET \(literal: max(0, scanLimit - 1))
                        """
                    ).first()?.decode(column: "id", as: Int64.self) : nil
                let upTo: SQLQueryString = windowEnd.map { "d.id <= \(bind: $0)" } ?? "TRUE"
                rows = try await db.raw(
                    """
                    SELECT \(unsafeRaw: columns) FROM devices d
                    WHERE d.app_id = \(bind: app) AND d.id > \(bind: after) AND \(upTo) AND \(matching)
                    ORDER BY d.id LIMIT \(literal: limit + 1)
                    """
                ).all()
            }
            let found = try rows.map { row in
                (cursor: try row.decode(column: "id", as: Int64.self), record: try Self.record(row, channels: []))
            }
            let page = Array(found.prefix(limit))
            // More matches past this page, or candidates past the window not looked at yet: go on from there.
            let next = found.count > limit ? page.last?.cursor : windowEnd
            return DeviceListing(devices: page, nextCursor: next)
        }
    }
}

extension SQLDeviceRegistry {
    public func summary(app: String, now: Timestamp) async throws -> [DeviceOS: DeviceCounts] {
        let day: Int64 = 86_400_000
        return try await backend.read { db in
            let rows = try await db.raw(
                """
                SELECT os, COUNT(*) AS devices,
                       SUM(CASE WHEN is_active = \(bind: true) THEN 1 ELSE 0 END) AS active,
                       SUM(CASE WHEN last_seen_at >= \(bind: now.milliseconds - day) THEN 1 ELSE 0 END) AS seen_day,
                       SUM(CASE WHEN last_seen_at >= \(bind: now.milliseconds - 7 * day) THEN 1 ELSE 0 END) AS seen_week,
                       SUM(CASE WHEN last_seen_at >= \(bind: now.milliseconds - 30 * day) THEN 1 ELSE 0 END) AS seen_month
                FROM devices WHERE app_id = \(bind: app)
                GROUP BY os
                """
            ).all()
            var counts: [DeviceOS: DeviceCounts] = [:]
            for row in rows {
                guard let os = try? DeviceOS(parsing: try row.decode(column: "os", as: String.self)) else { continue }
                counts[os] = DeviceCounts(
                    devices: try row.decode(column: "devices", as: Int64.self), active: try row.decode(column: "active", as: Int64.self),
                    seenDay: try row.decode(column: "seen_day", as: Int64.self),
                    seenWeek: try row.decode(column: "seen_week", as: Int64.self),
                    seenMonth: try row.decode(column: "seen_month", as: Int64.self))
            }
            return counts
        }
    }
}
