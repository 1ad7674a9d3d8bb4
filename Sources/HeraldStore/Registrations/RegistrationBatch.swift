import Foundation
import HeraldCore
import PostgresKit
import SQLKit

/// Writes many register calls with a handful of set-based statements, inside one transaction.
///
/// A statement's round trip through the database's thread pool costs about 55 µs here, which caps
/// one-by-one registration (four statements each) at under 2,000/s. A batch costs four statements in all.
/// The outcome is the same as applying the calls one after another in order: for a device named twice,
/// the later call's token, os and last-seen time win, and for a (device, channel) named twice, the
/// later call's expiration wins.
struct RegistrationBatch {
    struct Call: Sendable {
        let app: String
        let request: RegistrationRequest
        let now: Timestamp
    }

    /// Bind parameters per statement: under SQLite's 32,766 and PostgreSQL's 65,535.
    static let maxBinds = 30_000

    let calls: [Call]

    func write(_ db: any SQLDatabase) async throws -> [RegistrationReceipt] {
        if let session = db as? PostgresSession {
            // PostgreSQL: the batch as one statement with whole columns as array binds (RegistrationBatch+Postgres),
            // on the transaction's own connection.
            return try await write(session.connection, logger: session.logger)
        }
        let devices = try await upsertDevices(db)
        let channels = try await ensureChannels(db)
        let registrationIds = try await upsertRegistrations(db, devices: devices, channels: channels)
        return try receipts(devices: devices, channels: channels, registrationIds: registrationIds)
    }

    /// Each call's receipt from the ids the upserts returned.
    func receipts(
        devices: [DeviceKey: (id: Int64, registrationId: String)], channels: [ChannelKey: Int64],
        registrationIds: [RegistrationKey: String]
    ) throws -> [RegistrationReceipt] {
        try calls.map { call in
            guard let device = devices[DeviceKey(call)] else { throw StoreInvariantViolation("device upsert lost a device") }
            var ids: [ChannelName: String] = [:]
            for channel in call.request.channels {
                guard let channelId = channels[ChannelKey(app: call.app, name: channel)],
                    let id = registrationIds[RegistrationKey(channel: channelId, device: device.id)]
                else {
                    throw StoreInvariantViolation("registration upsert lost a registration")
                }
                ids[channel] = id
            }
            return RegistrationReceipt(registrationId: device.registrationId, channelRegistrationIds: ids)
        }
    }

    /// Compares ids byte for byte, as the database does: Swift's `String` equality would merge
    /// canonically equivalent spellings ("é" and "e\u{301}") that the database keeps apart.
    struct DeviceKey: Hashable, Comparable {
        let app: [UInt8]
        let deviceId: [UInt8]
        static func < (lhs: DeviceKey, rhs: DeviceKey) -> Bool {
            lhs.app == rhs.app ? lhs.deviceId.lexicographicallyPrecedes(rhs.deviceId) : lhs.app.lexicographicallyPrecedes(rhs.app)
        }
        init(_ call: Call) { self.init(app: call.app, deviceId: call.request.deviceId.rawValue) }
        /// Hashed as two runs of bytes, not byte by byte (`Hasher.combine` per byte was the batch's
        /// largest Swift cost under callgrind); equality stays the arrays'.
        func hash(into hasher: inout Hasher) {
            hasher.combine(app.count)
            app.withUnsafeBytes { hasher.combine(bytes: $0) }
            deviceId.withUnsafeBytes { hasher.combine(bytes: $0) }
        }
        init(app: String, deviceId: String) {
            self.app = Array(app.utf8)
            self.deviceId = Array(deviceId.utf8)
        }
    }

    /// Channel names are ASCII, so `String` equality is byte equality; the app id is compared by bytes.
    struct ChannelKey: Hashable {
        let app: [UInt8]
        let name: ChannelName
        init(app: String, name: ChannelName) {
            self.app = Array(app.utf8)
            self.name = name
        }
    }

    struct RegistrationKey: Hashable, Comparable {
        let channel: Int64
        let device: Int64
        static func < (lhs: RegistrationKey, rhs: RegistrationKey) -> Bool { (lhs.channel, lhs.device) < (rhs.channel, rhs.device) }
    }

    /// The devices' columns in the order both backends' upserts give their values.
    static let deviceColumns = """
        app_id, device_id, registration_id, device_token, os, os_version, created_at, last_seen_at, is_active,
            install_id, device_name, device_model, app_version, app_version_key, app_build, locale, time_zone,
            location_lat, location_lon, location_accuracy
        """

    /// What a device upsert does to a known device (both backends).
    static let deviceConflict = """
        ON CONFLICT (app_id, device_id) DO UPDATE SET
            device_token = excluded.device_token, os = excluded.os, os_version = excluded.os_version,
            last_seen_at = excluded.last_seen_at,
            is_active = CASE WHEN devices.deactivated_by = 'admin' OR devices.device_token = excluded.device_token
                THEN devices.is_active ELSE TRUE END,
            deactivated_by = CASE WHEN devices.deactivated_by = 'admin' OR devices.device_token = excluded.device_token
                THEN devices.deactivated_by ELSE NULL END,
            \(RegistrationBatch.keepUnsent)
        """

    /// One call per device named, in key order, with the metadata of every call for it merged (the later
    /// call's values win, unsent ones keep the earlier call's).
    func deviceRows() -> [Call] {
        var latest: [DeviceKey: Call] = [:]
        var order: [DeviceKey] = []
        for call in calls {
            let key = DeviceKey(call)
            guard let earlier = latest[key] else {
                latest[key] = call
                order.append(key)
                continue
            }
            var request = call.request
            request.metadata = request.metadata.merged(over: earlier.request.metadata)
            latest[key] = Call(app: call.app, request: request, now: call.now)
        }
        // Rows are written in key order, so two concurrent batches lock shared rows in the same order
        // and cannot deadlock (PostgreSQL locks each row as its upsert reaches it).
        order.sort()
        return order.map { latest[$0]! }
    }

    /// The channels named, per app, each once and in order (apps by bytes, names sorted), with the time a
    /// new one is created at (the app's latest call's).
    func channelGroups() -> [(app: String, names: [ChannelName], created: Int64)] {
        var created: [String: Int64] = [:]
        var names: [String: [ChannelName]] = [:]
        var seen = Set<ChannelKey>()
        for call in calls {
            for channel in call.request.channels where seen.insert(ChannelKey(app: call.app, name: channel)).inserted {
                names[call.app, default: []].append(channel)
                created[call.app] = call.now.milliseconds
            }
        }
        return names.sorted(by: { Array($0.key.utf8).lexicographicallyPrecedes(Array($1.key.utf8)) }).map { app, appChannels in
            (app, appChannels.sorted(by: { $0.rawValue < $1.rawValue }), created[app]!)
        }
    }

    /// What a registration upsert does to a known registration (both backends).
    static let registrationConflict = """
        ON CONFLICT (channel_id, device_id) DO UPDATE SET
            expires_at = excluded.expires_at, updated_at = excluded.updated_at
        """

    /// One row per (channel, device) named, in key order, with the latest call naming it.
    func registrationRows(
        devices: [DeviceKey: (id: Int64, registrationId: String)], channels: [ChannelKey: Int64]
    ) throws -> [(key: RegistrationKey, call: Call)] {
        var latest: [RegistrationKey: Call] = [:]
        var order: [RegistrationKey] = []
        for call in calls {
            guard let device = devices[DeviceKey(call)] else { throw StoreInvariantViolation("device upsert lost a device") }
            for channel in call.request.channels {
                guard let channelId = channels[ChannelKey(app: call.app, name: channel)] else {
                    throw StoreInvariantViolation("channel upsert lost a channel")
                }
                let key = RegistrationKey(channel: channelId, device: device.id)
                if latest.updateValue(call, forKey: key) == nil { order.append(key) }
            }
        }
        order.sort()
        return order.map { ($0, latest[$0]!) }
    }

    /// One row per (app, device, channel) named, with the latest call naming it, in (channel, device) order:
    /// the registrations before their device and channel ids are known (PostgreSQL's one statement).
    func namedRegistrations() -> [(key: NamedRegistration, call: Call)] {
        var latest: [NamedRegistration: Call] = [:]
        var order: [NamedRegistration] = []
        for call in calls {
            for channel in call.request.channels {
                let key = NamedRegistration(device: DeviceKey(call), channel: channel)
                if latest.updateValue(call, forKey: key) == nil { order.append(key) }
            }
        }
        order.sort()
        return order.map { ($0, latest[$0]!) }
    }

    struct NamedRegistration: Hashable, Comparable {
        let device: DeviceKey
        let channel: ChannelName
        static func < (lhs: NamedRegistration, rhs: NamedRegistration) -> Bool {
            lhs.channel.rawValue == rhs.channel.rawValue ? lhs.device < rhs.device : lhs.channel.rawValue < rhs.channel.rawValue
        }
    }

    static func newId() -> String { UUID().lowercasedText }

    /// The upsert's SET for the metadata columns: what the call sent, else what is stored. The three
    /// location columns move together (a location is sent whole), keyed on its latitude.
    static let keepUnsent: String = {
        let texts = ["install_id", "device_name", "device_model", "app_version", "app_build", "locale", "time_zone"]
            .map { "\($0) = COALESCE(excluded.\($0), devices.\($0))" }
        // The version's sort key moves with the version (a version without one clears it).
        let versionKey =
            "app_version_key = CASE WHEN excluded.app_version IS NULL THEN devices.app_version_key ELSE excluded.app_version_key END"
        let location = ["location_lat", "location_lon", "location_accuracy"]
            .map { "\($0) = CASE WHEN excluded.location_lat IS NULL THEN devices.\($0) ELSE excluded.\($0) END" }
        return (texts + [versionKey] + location).joined(separator: ",\n    ")
    }()
}

extension Array {
    /// Consecutive slices of at most `count` elements.
    func chunks(ofCount count: Int) -> [ArraySlice<Element>] {
        stride(from: 0, to: self.count, by: count).map { self[$0..<Swift.min($0 + count, self.count)] }
    }
}
