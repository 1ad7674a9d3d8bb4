import Foundation
import HeraldCore
import SQLKit

/// The one `RegistrationStore`, written against SQLKit so SQLite and PostgreSQL share every query.
/// Values reach SQL only as bind parameters.
public struct SQLRegistrationStore: RegistrationStore {
    let backend: any SQLBackend

    public init(backend: any SQLBackend) {
        self.backend = backend
    }

    public func register(app: String, _ request: RegistrationRequest, now: Timestamp) async throws -> RegistrationReceipt {
        try await backend.write { db in
            let device = try await Self.upsertDevice(db, app: app, request, now: now)
            let channelIds = try await Self.ensureChannels(db, app: app, request.channels, now: now)
            let expiresAt = request.expiration?.timestamp.milliseconds
            let values = request.channels.map { channel -> SQLQueryString in
                "(\(bind: channelIds[channel]!), \(bind: device.id), \(bind: Self.newId()), \(bind: expiresAt), \(bind: now.milliseconds), \(bind: now.milliseconds))"
            }
            let rows = try await db.raw("""
                INSERT INTO registrations (channel_id, device_id, registration_id, expires_at, created_at, updated_at)
                VALUES \(values.joined(separator: ", "))
                ON CONFLICT (channel_id, device_id) DO UPDATE SET
                    expires_at = excluded.expires_at, updated_at = excluded.updated_at
                RETURNING channel_id, registration_id
                """).all()
            let names = Dictionary(uniqueKeysWithValues: channelIds.map { ($1, $0) })
            var ids: [ChannelName: String] = [:]
            for row in rows {
                let channel = try row.decode(column: "channel_id", as: Int64.self)
                if let name = names[channel] { ids[name] = try row.decode(column: "registration_id", as: String.self) }
            }
            return RegistrationReceipt(registrationId: device.registrationId, channelRegistrationIds: ids)
        }
    }

    /// Inserts the device or refreshes its token, platform and last-seen time. A new token re-activates
    /// a device that was deactivated for its old one; the same token keeps the device's state.
    static func upsertDevice(_ db: any SQLDatabase, app: String, _ request: RegistrationRequest, now: Timestamp) async throws -> (id: Int64, registrationId: String) {
        let row = try await db.raw("""
            INSERT INTO devices (app_id, device_id, registration_id, device_token, os, os_version, created_at, last_seen_at, is_active)
            VALUES (\(bind: app), \(bind: request.deviceId.rawValue), \(bind: newId()), \(bind: request.deviceToken.rawValue),
                    \(bind: request.os.rawValue), \(bind: request.osVersion), \(bind: now.milliseconds), \(bind: now.milliseconds), \(bind: true))
            ON CONFLICT (app_id, device_id) DO UPDATE SET
                device_token = excluded.device_token, os = excluded.os, os_version = excluded.os_version,
                last_seen_at = excluded.last_seen_at,
                is_active = CASE WHEN devices.device_token = excluded.device_token THEN devices.is_active ELSE TRUE END
            RETURNING id, registration_id
            """).first()
        guard let row else { throw StoreInvariantViolation("device upsert returned no row") }
        return (try row.decode(column: "id", as: Int64.self), try row.decode(column: "registration_id", as: String.self))
    }

    /// Creates the channels that do not exist yet (Backendless creates channels on first use) and returns all their ids.
    static func ensureChannels(_ db: any SQLDatabase, app: String, _ channels: [ChannelName], now: Timestamp) async throws -> [ChannelName: Int64] {
        let values = channels.map { "(\(bind: app), \(bind: $0.rawValue), \(bind: now.milliseconds))" as SQLQueryString }
        try await db.raw("""
            INSERT INTO channels (app_id, name, created_at) VALUES \(values.joined(separator: ", "))
            ON CONFLICT (app_id, name) DO NOTHING
            """).run()
        let rows = try await db.raw("""
            SELECT id, name FROM channels WHERE app_id = \(bind: app) AND name IN (\(binds: channels.map(\.rawValue)))
            """).all()
        var ids: [ChannelName: Int64] = [:]
        for row in rows {
            let name = try ChannelName(validating: try row.decode(column: "name", as: String.self))
            ids[name] = try row.decode(column: "id", as: Int64.self)
        }
        guard ids.count == channels.count else { throw StoreInvariantViolation("channel upsert lost a channel") }
        return ids
    }

    static func newId() -> String { UUID().uuidString.lowercased() }
}

/// A state the store's own writes should make impossible; reported as an internal error.
struct StoreInvariantViolation: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
