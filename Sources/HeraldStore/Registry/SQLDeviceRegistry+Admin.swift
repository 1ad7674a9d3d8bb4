import Foundation
import HeraldCore
import SQLKit

extension SQLDeviceRegistry {
    /// The `devices` columns a record is made of.
    static let recordColumns = """
        id, device_id, device_token, os, os_version, is_active, inactive_reason, deactivated_by,
        launch_count, first_launch_at, last_launch_at, created_at, last_seen_at,
        install_id, device_name, device_model, app_version, app_build, locale, time_zone,
        location_lat, location_lon, location_accuracy
        """

    public func record(app: String, deviceId: String, now: Timestamp) async throws -> DeviceRecord? {
        try await backend.read { db in
            guard
                let row = try await db.raw(
                    "SELECT \(unsafeRaw: Self.recordColumns) FROM devices WHERE app_id = \(bind: app) AND device_id = \(bind: deviceId)"
                ).first()
            else { return nil }
            let channelRows = try await db.raw(
                """
                SELECT c.name, r.expires_at FROM registrations r JOIN channels c ON c.id = r.channel_id
                WHERE r.device_id = \(bind: try row.decode(column: "id", as: Int64.self))
                  AND (r.expires_at IS NULL OR r.expires_at > \(bind: now.milliseconds))
                """
            ).all()
            let channels = try channelRows.map { channel in
                DeviceRecord.Channel(
                    name: try ChannelName(validating: try channel.decode(column: "name", as: String.self)),
                    expiration: try channel.decode(column: "expires_at", as: Int64?.self).map(Timestamp.init(milliseconds:)))
            }.sorted { $0.name < $1.name }
            return try Self.record(row, channels: channels)
        }
    }

    /// A record from a row of `recordColumns`.
    static func record(_ row: any SQLRow, channels: [DeviceRecord.Channel]) throws -> DeviceRecord {
        let os = try row.decode(column: "os", as: String.self)
        func time(_ column: String) throws -> Timestamp? {
            try row.decode(column: column, as: Int64?.self).map(Timestamp.init(milliseconds:))
        }
        return DeviceRecord(
            deviceId: try row.decode(column: "device_id", as: String.self),
            deviceToken: try row.decode(column: "device_token", as: String.self),
            os: os.isEmpty ? nil : try DeviceOS(parsing: os),
            osVersion: try row.decode(column: "os_version", as: String?.self),
            metadata: try SQLRegistrationStore.metadata(row),
            channels: channels,
            isActive: try row.decode(column: "is_active", as: Bool.self),
            inactiveReason: try row.decode(column: "inactive_reason", as: String?.self),
            deactivatedBy: try row.decode(column: "deactivated_by", as: String?.self).flatMap(DeactivatedBy.init(rawValue:)),
            launchCount: try row.decode(column: "launch_count", as: Int64.self),
            firstLaunchAt: try time("first_launch_at"), lastLaunchAt: try time("last_launch_at"),
            createdAt: Timestamp(milliseconds: try row.decode(column: "created_at", as: Int64.self)),
            lastSeenAt: Timestamp(milliseconds: try row.decode(column: "last_seen_at", as: Int64.self)))
    }

    public func setActive(app: String, deviceId: String, active: Bool, reason: String?, now: Timestamp) async throws -> Bool {
        try await backend.write { db in
            // Only a change is written (and told to the webhook): activating an active device, or switching
            // off one the admin already switched off for the same reason, changes nothing. Under PostgreSQL
            // a concurrent second call re-reads the row once the first commits, so it too changes nothing.
            let changed: (any SQLRow)?
            if active {
                changed = try await db.raw(
                    """
                    UPDATE devices SET is_active = TRUE, deactivated_by = NULL, inactive_reason = NULL
                    WHERE app_id = \(bind: app) AND device_id = \(bind: deviceId) AND is_active = FALSE
                    RETURNING device_token
                    """
                ).first()
            } else {
                changed = try await db.raw(
                    """
                    UPDATE devices SET is_active = FALSE, deactivated_by = \(bind: DeactivatedBy.admin.rawValue),
                        inactive_reason = \(bind: reason)
                    WHERE app_id = \(bind: app) AND device_id = \(bind: deviceId)
                      AND NOT (is_active = FALSE AND COALESCE(deactivated_by, '') = \(bind: DeactivatedBy.admin.rawValue)
                               AND COALESCE(inactive_reason, '') = \(bind: reason ?? ""))
                    RETURNING device_token
                    """
                ).first()
            }
            guard let row = changed else {
                // Unchanged, or no such device.
                return try await db.raw("SELECT id FROM devices WHERE app_id = \(bind: app) AND device_id = \(bind: deviceId)")
                    .first() != nil
            }
            if !active {
                let token = try row.decode(column: "device_token", as: String.self)
                try await events.append(
                    db, app: app, type: .deviceDeactivated,
                    data: [
                        "deviceId": .string(deviceId), "deviceToken": token.isEmpty ? .null : .string(token), "by": .string("admin"),
                        "reason": reason.map(JSONValue.string) ?? .null, "messageId": .null,
                    ], at: now.milliseconds)
            }
            return true
        }
    }

    public func erase(app: String, deviceId: String) async throws -> Bool {
        // Registrations and launches go with the device (ON DELETE CASCADE), its delivery history (under its
        // row's key and every key it had before, so it outlives a token removal) and its webhook events not
        // yet delivered (they carry its token) explicitly, all in one transaction. The device goes first: on
        // PostgreSQL that waits for a fan-out checkpoint removing the same device to commit, so the statements
        // after it see the history, retired key and events that checkpoint wrote. Its keys stay retired
        // (`RetiredDeviceKeys`): a fan-out that read the device before may still write an entry, which a
        // later erasure then finds; the sweeper forgets the keys once nothing is under them.
        try await backend.write { db in
            let device = try await RetiredDeviceKeys.deleteDevices(
                db, where: "app_id = \(bind: app) AND device_id = \(bind: deviceId)", always: true
            ).first
            let keys = try await db.raw(
                "SELECT device_key FROM retired_device_keys WHERE app_id = \(bind: app) AND device_id = \(bind: deviceId)"
            ).all().map { try $0.decode(column: "device_key", as: Int64.self) }
            var erased = device != nil
            for key in keys {
                let history = try await db.raw(
                    """
                    DELETE FROM deliveries WHERE app_id = \(bind: app) AND device_key = \(bind: key) AND device_id = \(bind: deviceId)
                    RETURNING id
                    """
                ).all()
                if !history.isEmpty { erased = true }
            }
            try await db.raw("DELETE FROM webhook_events WHERE app_id = \(bind: app) AND device_id = \(bind: deviceId)").run()
            return erased
        }
    }

    public func launches(app: String, deviceId: String, before cursor: Int64?, limit: Int) async throws -> [LaunchEntry]? {
        try await backend.read { db in
            guard
                let device = try await db.raw("SELECT id FROM devices WHERE app_id = \(bind: app) AND device_id = \(bind: deviceId)")
                    .first()?.decode(column: "id", as: Int64.self)
            else { return nil }
            let rows = try await db.raw(
                """
                SELECT id, launched_at, app_version, app_build FROM launches
                WHERE device_id = \(bind: device) AND id < \(bind: cursor ?? Int64.max)
                ORDER BY id DESC LIMIT \(literal: limit)
                """
            ).all()
            return try rows.map { row in
                LaunchEntry(
                    cursor: try row.decode(column: "id", as: Int64.self),
                    launchedAt: Timestamp(milliseconds: try row.decode(column: "launched_at", as: Int64.self)),
                    appVersion: try row.decode(column: "app_version", as: String?.self),
                    appBuild: try row.decode(column: "app_build", as: String?.self))
            }
        }
    }

    public func deliveries(app: String, deviceId: String, before cursor: Int64?, limit: Int) async throws -> [DeliveryEntry]? {
        try await backend.read { db in
            let (keys, live) = try await RetiredDeviceKeys.keys(db, app: app, deviceId: deviceId)
            guard !keys.isEmpty else { return nil }
            // Each key's newest entries through `deliveries_by_device_key` (usually one key: the device's
            // row), merged. The device id is matched too: SQLite may have given a deleted device's key to
            // another device since.
            let perKey = keys.map { key -> SQLQueryString in
                """
                SELECT * FROM (
                    SELECT id, message_id, delivered_at, outcome, reason FROM deliveries
                    WHERE app_id = \(bind: app) AND device_key = \(bind: key) AND device_id = \(bind: deviceId)
                      AND id < \(bind: cursor ?? Int64.max)
                    ORDER BY id DESC LIMIT \(literal: limit)) k
                """
            }
            let rows = try await db.raw(
                """
                SELECT d.id, d.message_id, d.delivered_at, d.outcome, d.reason, m.template_name
                FROM (\(perKey.joined(separator: " UNION ALL "))) d
                LEFT JOIN messages m ON m.id = d.message_id
                ORDER BY d.id DESC LIMIT \(literal: limit)
                """
            ).all()
            if rows.isEmpty, cursor == nil, !live { return nil }
            return try rows.map { row in
                DeliveryEntry(
                    cursor: try row.decode(column: "id", as: Int64.self),
                    messageId: try row.decode(column: "message_id", as: String.self),
                    deliveredAt: Timestamp(milliseconds: try row.decode(column: "delivered_at", as: Int64.self)),
                    outcome: try row.decode(column: "outcome", as: String.self),
                    reason: try row.decode(column: "reason", as: String?.self),
                    templateName: try row.decode(column: "template_name", as: String?.self))
            }
        }
    }
}
