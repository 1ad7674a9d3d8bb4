import HeraldCore
import SQLKit

/// A registration batch's statements through SQLKit (SQLite): the three upserts with a bind per value,
/// chunked under the bind limit. PostgreSQL sends the same upserts as one statement
/// (RegistrationBatch+Postgres); the rows both write come from the batch's planning (RegistrationBatch).
extension RegistrationBatch {
    /// Inserts new devices and refreshes known ones. A new token re-activates a device that its push
    /// service deactivated for its old one; the same token keeps the device's state, and so does a device an
    /// admin switched off (only an admin switches it on again). Metadata a call does not
    /// send keeps its stored value (and, for a device named twice in the batch, the earlier call's).
    func upsertDevices(_ db: any SQLDatabase) async throws -> [DeviceKey: (id: Int64, registrationId: String)] {
        var devices: [DeviceKey: (id: Int64, registrationId: String)] = [:]
        for chunk in deviceRows().chunks(ofCount: Self.maxBinds / 20) {
            let values = chunk.map { call -> SQLQueryString in
                let request = call.request
                let now = call.now.milliseconds
                let metadata = request.metadata
                return """
                    (\(bind: call.app), \(bind: request.deviceId.rawValue), \(bind: Self.newId()), \(bind: request.deviceToken.rawValue), \
                    \(bind: request.os.rawValue), \(bind: request.osVersion), \(bind: now), \(bind: now), \(bind: true), \
                    \(bind: metadata.installId), \(bind: metadata.deviceName), \(bind: metadata.deviceModel), \(bind: metadata.appVersion), \
                    \(bind: metadata.appVersionKey), \(bind: metadata.appBuild), \(bind: metadata.locale), \(bind: metadata.timeZone), \
                    \(bind: metadata.location?.lat), \(bind: metadata.location?.lon), \(bind: metadata.location?.accuracy))
                    """
            }
            let rows = try await db.raw(
                """
                INSERT INTO devices (\(unsafeRaw: Self.deviceColumns))
                VALUES \(values.joined(separator: ", "))
                \(unsafeRaw: Self.deviceConflict)
                RETURNING id, app_id, device_id, registration_id
                """
            ).all()
            for row in rows {
                let key = DeviceKey(
                    app: try row.decode(column: "app_id", as: String.self),
                    deviceId: try row.decode(column: "device_id", as: String.self))
                devices[key] = (try row.decode(column: "id", as: Int64.self), try row.decode(column: "registration_id", as: String.self))
            }
        }
        return devices
    }

    /// Creates the channels that do not exist yet (Backendless creates channels on first use) and returns all their ids.
    func ensureChannels(_ db: any SQLDatabase) async throws -> [ChannelKey: Int64] {
        var ids: [ChannelKey: Int64] = [:]
        for group in channelGroups() {
            for chunk in group.names.chunks(ofCount: Self.maxBinds / 3) {
                let values = chunk.map { "(\(bind: group.app), \(bind: $0.rawValue), \(bind: group.created))" as SQLQueryString }
                try await db.raw(
                    """
                    INSERT INTO channels (app_id, name, created_at) VALUES \(values.joined(separator: ", "))
                    ON CONFLICT (app_id, name) DO NOTHING
                    """
                ).run()
                let rows = try await db.raw(
                    """
                    SELECT id, name FROM channels WHERE app_id = \(bind: group.app) AND name IN (\(binds: chunk.map(\.rawValue)))
                    """
                ).all()
                for row in rows {
                    let name = try ChannelName(validating: try row.decode(column: "name", as: String.self))
                    ids[ChannelKey(app: group.app, name: name)] = try row.decode(column: "id", as: Int64.self)
                }
            }
        }
        return ids
    }

    /// Upserts one registration per (device, channel) named; returns each one's stable id.
    func upsertRegistrations(
        _ db: any SQLDatabase, devices: [DeviceKey: (id: Int64, registrationId: String)],
        channels: [ChannelKey: Int64]
    ) async throws -> [RegistrationKey: String] {
        var ids: [RegistrationKey: String] = [:]
        for chunk in try registrationRows(devices: devices, channels: channels).chunks(ofCount: Self.maxBinds / 6) {
            let values = chunk.map { key, call -> SQLQueryString in
                let now = call.now.milliseconds
                return
                    "(\(bind: key.channel), \(bind: key.device), \(bind: Self.newId()), \(bind: call.request.expiration?.timestamp.milliseconds), \(bind: now), \(bind: now))"
            }
            let rows = try await db.raw(
                """
                INSERT INTO registrations (channel_id, device_id, registration_id, expires_at, created_at, updated_at)
                VALUES \(values.joined(separator: ", "))
                \(unsafeRaw: Self.registrationConflict)
                RETURNING channel_id, device_id, registration_id
                """
            ).all()
            for row in rows {
                let key = RegistrationKey(
                    channel: try row.decode(column: "channel_id", as: Int64.self),
                    device: try row.decode(column: "device_id", as: Int64.self))
                ids[key] = try row.decode(column: "registration_id", as: String.self)
            }
        }
        return ids
    }
}
