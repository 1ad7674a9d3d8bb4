import HeraldCore
import SQLKit

/// `DeviceRegistryStore` on the same SQL backends and tables as `SQLRegistrationStore` (a device is one
/// `devices` row for both).
public struct SQLDeviceRegistry: DeviceRegistryStore {
    let backend: any SQLBackend
    /// Launches kept per device, newest first; older ones are deleted as new ones come in.
    let launchHistoryLimit: Int

    /// Which apps' admin deactivations write a webhook event (in the same transaction).
    let events: EventOutbox

    public init(backend: any SQLBackend, launchHistoryLimit: Int = 100, events: EventOutbox = .none) {
        self.backend = backend
        self.launchHistoryLimit = max(1, launchHistoryLimit)
        self.events = events
    }

    public func recordLaunch(app: String, deviceId: DeviceID, metadata: DeviceMetadata, now: Timestamp) async throws -> LaunchRecord {
        try await backend.write { db in
            let at = now.milliseconds
            // A device first seen by its launch has no token and no os yet (''): no registration refers to
            // it, so no fan-out reaches it until it registers, which fills both in.
            guard
                let row = try await db.raw(
                    """
                    INSERT INTO devices (app_id, device_id, registration_id, device_token, os, created_at, last_seen_at, is_active,
                        launch_count, first_launch_at, last_launch_at,
                        install_id, device_name, device_model, app_version, app_version_key, app_build, locale, time_zone,
                        location_lat, location_lon, location_accuracy)
                    VALUES (\(bind: app), \(bind: deviceId.rawValue), \(bind: RegistrationBatch.newId()), '', '', \(bind: at), \(bind: at), \(bind: true),
                        1, \(bind: at), \(bind: at),
                        \(bind: metadata.installId), \(bind: metadata.deviceName), \(bind: metadata.deviceModel), \(bind: metadata.appVersion),
                        \(bind: metadata.appVersionKey), \(bind: metadata.appBuild), \(bind: metadata.locale), \(bind: metadata.timeZone),
                        \(bind: metadata.location?.lat), \(bind: metadata.location?.lon), \(bind: metadata.location?.accuracy))
                    ON CONFLICT (app_id, device_id) DO UPDATE SET
                        launch_count = devices.launch_count + 1,
                        first_launch_at = COALESCE(devices.first_launch_at, excluded.first_launch_at),
                        last_launch_at = excluded.last_launch_at,
                        last_seen_at = excluded.last_seen_at,
                        \(unsafeRaw: RegistrationBatch.keepUnsent)
                    RETURNING id, is_active, deactivated_by, inactive_reason, launch_count, first_launch_at, last_launch_at
                    """
                ).first()
            else { throw StoreInvariantViolation("a launch upsert returned no row") }
            let device = try row.decode(column: "id", as: Int64.self)
            try await db.raw(
                """
                INSERT INTO launches (device_id, launched_at, app_version, app_build)
                VALUES (\(bind: device), \(bind: at), \(bind: metadata.appVersion), \(bind: metadata.appBuild))
                """
            ).run()
            // Keep the newest `launchHistoryLimit`: at most one row goes per launch, so this stays bounded.
            // A device has at most launch_count rows, so one launched no more than the limit has none to
            // drop, and most launches skip the statement.
            let launchCount = try row.decode(column: "launch_count", as: Int64.self)
            if launchCount > launchHistoryLimit {
                try await db.raw(
                    """
                    DELETE FROM launches WHERE device_id = \(bind: device) AND id <= (
                        SELECT id FROM launches WHERE device_id = \(bind: device) ORDER BY id DESC
                        LIMIT 1 OFFSET \(literal: launchHistoryLimit))
                    """
                ).run()
            }
            let byAdmin = try row.decode(column: "deactivated_by", as: String?.self) == DeactivatedBy.admin.rawValue
            let active = try row.decode(column: "is_active", as: Bool.self)
            return LaunchRecord(
                allowed: active || !byAdmin,
                reason: byAdmin && !active ? try row.decode(column: "inactive_reason", as: String?.self) : nil,
                launchCount: launchCount,
                firstLaunchAt: Timestamp(milliseconds: try row.decode(column: "first_launch_at", as: Int64?.self) ?? at),
                lastLaunchAt: Timestamp(milliseconds: try row.decode(column: "last_launch_at", as: Int64?.self) ?? at))
        }
    }
}
