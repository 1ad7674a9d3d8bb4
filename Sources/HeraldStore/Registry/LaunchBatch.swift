import HeraldCore
import SQLKit

/// Writes many launch calls with a few set-based statements, inside one transaction (the launch
/// counterpart of `RegistrationBatch`): one upsert of the devices, one insert of the launches, and a
/// trim of the launch history only for devices past its cap.
///
/// The outcome is the same as recording the calls one after another in order: a device launched twice
/// in a batch counts two launches, its first answer sees the count before the second, and metadata a
/// later call sends wins over an earlier call's.
struct LaunchBatch {
    struct Call: Sendable {
        let app: String
        let deviceId: DeviceID
        let metadata: DeviceMetadata
        let now: Timestamp
    }

    /// Devices per upsert statement (22 binds each) and launches per insert (4 binds each).
    static let devicesPerStatement = RegistrationBatch.maxBinds / 22
    static let launchesPerStatement = RegistrationBatch.maxBinds / 4

    let calls: [Call]
    /// Launches kept per device.
    let historyLimit: Int

    /// A device's calls in this batch, merged into one row's worth of change.
    private struct Group {
        var indices: [Int]
        var metadata: DeviceMetadata
        var first: Int64
        var last: Int64
    }

    func write(_ db: any SQLDatabase) async throws -> [LaunchRecord] {
        var groups: [RegistrationBatch.DeviceKey: Group] = [:]
        for (index, call) in calls.enumerated() {
            let key = RegistrationBatch.DeviceKey(app: call.app, deviceId: call.deviceId.rawValue)
            let at = call.now.milliseconds
            if var group = groups[key] {
                group.indices.append(index)
                group.metadata = call.metadata.merged(over: group.metadata)
                group.first = min(group.first, at)
                group.last = max(group.last, at)
                groups[key] = group
            } else {
                groups[key] = Group(indices: [index], metadata: call.metadata, first: at, last: at)
            }
        }
        // Key order, so two concurrent PostgreSQL batches lock shared rows in the same order.
        let order = groups.keys.sorted()
        var records: [LaunchRecord?] = Array(repeating: nil, count: calls.count)
        var deviceIds: [Int64?] = Array(repeating: nil, count: calls.count)
        var overCap: [Int64] = []
        for chunk in order.chunks(ofCount: Self.devicesPerStatement) {
            // A device first seen by its launch has no token and no os yet (''): no registration refers
            // to it, so no fan-out reaches it until it registers, which fills both in.
            let values = chunk.map { key -> SQLQueryString in
                let group = groups[key]!
                let call = calls[group.indices[0]]
                let metadata = group.metadata
                return """
                    (\(bind: call.app), \(bind: call.deviceId.rawValue), \(bind: RegistrationBatch.newId()), '', '', \
                    \(bind: group.first), \(bind: group.last), \(bind: true), \(bind: Int64(group.indices.count)), \(bind: group.first), \
                    \(bind: group.last), \(bind: metadata.installId), \(bind: metadata.deviceName), \(bind: metadata.deviceModel), \
                    \(bind: metadata.appVersion), \(bind: metadata.appVersionKey), \(bind: metadata.appBuild), \(bind: metadata.locale), \
                    \(bind: metadata.timeZone), \(bind: metadata.location?.lat), \(bind: metadata.location?.lon), \
                    \(bind: metadata.location?.accuracy))
                    """
            }
            let rows = try await db.raw(
                """
                INSERT INTO devices (app_id, device_id, registration_id, device_token, os, created_at, last_seen_at, is_active,
                    launch_count, first_launch_at, last_launch_at,
                    install_id, device_name, device_model, app_version, app_version_key, app_build, locale, time_zone,
                    location_lat, location_lon, location_accuracy)
                VALUES \(values.joined(separator: ", "))
                ON CONFLICT (app_id, device_id) DO UPDATE SET
                    launch_count = devices.launch_count + excluded.launch_count,
                    first_launch_at = COALESCE(devices.first_launch_at, excluded.first_launch_at),
                    last_launch_at = excluded.last_launch_at,
                    last_seen_at = excluded.last_seen_at,
                    \(unsafeRaw: RegistrationBatch.keepUnsent)
                RETURNING id, app_id, device_id, is_active, deactivated_by, inactive_reason, launch_count, first_launch_at
                """
            ).all()
            for row in rows {
                let key = RegistrationBatch.DeviceKey(
                    app: try row.decode(column: "app_id", as: String.self), deviceId: try row.decode(column: "device_id", as: String.self))
                guard let group = groups[key] else { throw StoreInvariantViolation("a launch upsert returned an unknown device") }
                let device = try row.decode(column: "id", as: Int64.self)
                let count = try row.decode(column: "launch_count", as: Int64.self)
                if count > Int64(historyLimit) { overCap.append(device) }
                let byAdmin = try row.decode(column: "deactivated_by", as: String?.self) == DeactivatedBy.admin.rawValue
                let active = try row.decode(column: "is_active", as: Bool.self)
                let reason = byAdmin && !active ? try row.decode(column: "inactive_reason", as: String?.self) : nil
                let firstLaunch = try row.decode(column: "first_launch_at", as: Int64?.self) ?? group.first
                // The group's launches are the last `indices.count` of the device's count, in call order.
                let before = count - Int64(group.indices.count)
                for (offset, index) in group.indices.enumerated() {
                    deviceIds[index] = device
                    records[index] = LaunchRecord(
                        allowed: active || !byAdmin, reason: reason, launchCount: before + Int64(offset) + 1,
                        firstLaunchAt: Timestamp(milliseconds: firstLaunch), lastLaunchAt: calls[index].now)
                }
            }
        }
        for chunk in Array(calls.indices).chunks(ofCount: Self.launchesPerStatement) {
            let values = try chunk.map { index -> SQLQueryString in
                guard let device = deviceIds[index] else { throw StoreInvariantViolation("a launch upsert lost a device") }
                let call = calls[index]
                return
                    "(\(bind: device), \(bind: call.now.milliseconds), \(bind: call.metadata.appVersion), \(bind: call.metadata.appBuild))"
            }
            try await db.raw(
                "INSERT INTO launches (device_id, launched_at, app_version, app_build) VALUES \(values.joined(separator: ", "))"
            ).run()
        }
        // Keep each device's newest `historyLimit`: only a device that launched more than that many times
        // can have more rows, and it sheds at most as many as this batch added.
        for device in overCap {
            try await db.raw(
                """
                DELETE FROM launches WHERE device_id = \(bind: device) AND id <= (
                    SELECT id FROM launches WHERE device_id = \(bind: device) ORDER BY id DESC
                    LIMIT 1 OFFSET \(literal: historyLimit))
                """
            ).run()
        }
        return try records.map { record in
            guard let record else { throw StoreInvariantViolation("a launch upsert lost a device") }
            return record
        }
    }
}
