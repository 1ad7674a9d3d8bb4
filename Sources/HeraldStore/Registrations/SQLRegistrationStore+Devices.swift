import HeraldCore
import SQLKit

extension SQLRegistrationStore {
    public func device(app: String, deviceId: String, now: Timestamp) async throws -> DeviceRegistration? {
        try await backend.read { db in
            let rows = try await db.raw(
                """
                SELECT d.registration_id, d.device_id AS device_key, d.device_token, d.os, d.os_version,
                       d.created_at, d.last_seen_at, d.is_active, c.name, r.expires_at,
                       d.install_id, d.device_name, d.device_model, d.app_version, d.app_build, d.locale, d.time_zone,
                       d.location_lat, d.location_lon, d.location_accuracy
                FROM devices d
                JOIN registrations r ON r.device_id = d.id
                JOIN channels c ON c.id = r.channel_id
                WHERE d.app_id = \(bind: app) AND d.device_id = \(bind: deviceId)
                  AND (r.expires_at IS NULL OR r.expires_at > \(bind: now.milliseconds))
                """
            ).all()
            guard let first = rows.first else { return nil }
            var channels: [ChannelName] = []
            var earliest: Int64?
            for row in rows {
                channels.append(try ChannelName(validating: try row.decode(column: "name", as: String.self)))
                if let expires = try row.decode(column: "expires_at", as: Int64?.self) {
                    earliest = min(earliest ?? expires, expires)
                }
            }
            channels.sort()  // by name here, not ORDER BY, so both backends answer alike
            return DeviceRegistration(
                registrationId: try first.decode(column: "registration_id", as: String.self),
                deviceId: try first.decode(column: "device_key", as: String.self),
                deviceToken: try first.decode(column: "device_token", as: String.self),
                os: try DeviceOS(parsing: try first.decode(column: "os", as: String.self)),
                osVersion: try first.decode(column: "os_version", as: String?.self),
                channels: channels,
                expiration: earliest.map(Timestamp.init(milliseconds:)),
                createdAt: Timestamp(milliseconds: try first.decode(column: "created_at", as: Int64.self)),
                lastSeenAt: Timestamp(milliseconds: try first.decode(column: "last_seen_at", as: Int64.self)),
                isActive: try first.decode(column: "is_active", as: Bool.self),
                metadata: try Self.metadata(first))
        }
    }

    public func unregister(app: String, deviceId: String, now: Timestamp) async throws -> Bool {
        try await backend.write { db in
            let live = try await Self.liveChannelCount(db, app: app, deviceId: deviceId, now: now)
            try await Self.deleteDevice(db, app: app, deviceId: deviceId)
            return live > 0
        }
    }

    public func unregister(app: String, deviceId: String, channels: [ChannelName], now: Timestamp) async throws -> Int? {
        try await backend.write { db in
            guard try await Self.liveChannelCount(db, app: app, deviceId: deviceId, now: now) > 0 else { return nil }
            if !channels.isEmpty {
                try await db.raw(
                    """
                    DELETE FROM registrations
                    WHERE device_id = (SELECT id FROM devices WHERE app_id = \(bind: app) AND device_id = \(bind: deviceId))
                      AND channel_id IN (SELECT id FROM channels WHERE app_id = \(bind: app) AND name IN (\(binds: channels.map(\.rawValue))))
                    """
                ).run()
            }
            let remaining = try await Self.liveChannelCount(db, app: app, deviceId: deviceId, now: now)
            if remaining == 0 {
                // Its last live channel is gone, so the device is gone too (as after expiry).
                try await Self.deleteDevice(db, app: app, deviceId: deviceId)
            }
            return remaining
        }
    }

    public func replaceToken(app: String, deviceId: String, token: DeviceToken, now: Timestamp) async throws -> Bool {
        try await backend.write { db in
            guard try await Self.liveChannelCount(db, app: app, deviceId: deviceId, now: now) > 0 else { return false }
            // The same rule as a registration's upsert: an admin's switch stays, a new token re-activates.
            try await db.raw(
                """
                UPDATE devices SET
                    is_active = CASE WHEN deactivated_by = 'admin' OR device_token = \(bind: token.rawValue)
                        THEN is_active ELSE TRUE END,
                    deactivated_by = CASE WHEN deactivated_by = 'admin' OR device_token = \(bind: token.rawValue)
                        THEN deactivated_by ELSE NULL END,
                    device_token = \(bind: token.rawValue), last_seen_at = \(bind: now.milliseconds)
                WHERE app_id = \(bind: app) AND device_id = \(bind: deviceId)
                """
            ).run()
            return true
        }
    }

    /// Deletes the device's row (its registrations go with it), keeping its key if it has history.
    static func deleteDevice(_ db: any SQLDatabase, app: String, deviceId: String) async throws {
        try await RetiredDeviceKeys.deleteDevices(db, where: "app_id = \(bind: app) AND device_id = \(bind: deviceId)")
    }

    static func liveChannelCount(_ db: any SQLDatabase, app: String, deviceId: String, now: Timestamp) async throws -> Int {
        let row = try await db.raw(
            """
            SELECT COUNT(*) AS live FROM registrations r JOIN devices d ON d.id = r.device_id
            WHERE d.app_id = \(bind: app) AND d.device_id = \(bind: deviceId)
              AND (r.expires_at IS NULL OR r.expires_at > \(bind: now.milliseconds))
            """
        ).first()
        return try row?.decode(column: "live", as: Int.self) ?? 0
    }

    /// The metadata columns of a `devices` row.
    static func metadata(_ row: any SQLRow) throws -> DeviceMetadata {
        func text(_ column: String) throws -> String? { try row.decode(column: column, as: String?.self) }
        var location: DeviceLocation?
        if let lat = try row.decode(column: "location_lat", as: Double?.self),
            let lon = try row.decode(column: "location_lon", as: Double?.self)
        {
            location = DeviceLocation(lat: lat, lon: lon, accuracy: try row.decode(column: "location_accuracy", as: Double?.self))
        }
        return DeviceMetadata(
            installId: try text("install_id"), deviceName: try text("device_name"), deviceModel: try text("device_model"),
            appVersion: try text("app_version"), appBuild: try text("app_build"), locale: try text("locale"),
            timeZone: try text("time_zone"), location: location)
    }
}
