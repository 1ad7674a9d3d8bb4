import HeraldCore
import Logging
import NIOCore
import PostgresNIO

/// A registration batch's statements on PostgreSQL: the same three upserts as through SQLKit, with each
/// column sent as one array bind and spread into rows by `unnest`, instead of a bind per value.
///
/// Through SQLKit every value of a batch is an `Encodable` that PostgresKit translates one by one (a
/// bind per value, 20 per device), and every returned row is decoded through `Decodable`: that
/// translation was most of PostgreSQL's extra CPU per registration against SQLite's (BENCHMARKS.md).
/// Here each column is encoded once, straight into PostgresNIO's binary array format, and the returned
/// rows are decoded as typed tuples. The statement text is fixed, so PostgreSQL parses one shape
/// whatever the batch's size, and there is no bind limit to chunk for.
extension RegistrationBatch {
    func upsertDevices(_ connection: PostgresConnection, logger: Logger) async throws -> [DeviceKey: (id: Int64, registrationId: String)] {
        let rows = deviceRows()
        guard !rows.isEmpty else { return [:] }
        var apps: [String] = []
        var deviceIds: [String] = []
        var registrationIds: [String] = []
        var tokens: [String] = []
        var systems: [String] = []
        var osVersions = NullableArray<String>()
        var times: [Int64] = []
        var installIds = NullableArray<String>()
        var names = NullableArray<String>()
        var models = NullableArray<String>()
        var versions = NullableArray<String>()
        var versionKeys = NullableArray<String>()
        var builds = NullableArray<String>()
        var locales = NullableArray<String>()
        var zones = NullableArray<String>()
        var latitudes = NullableArray<Double>()
        var longitudes = NullableArray<Double>()
        var accuracies = NullableArray<Double>()
        for call in rows {
            let request = call.request
            let metadata = request.metadata
            apps.append(call.app)
            deviceIds.append(request.deviceId.rawValue)
            registrationIds.append(Self.newId())
            tokens.append(request.deviceToken.rawValue)
            systems.append(request.os.rawValue)
            osVersions.append(request.osVersion)
            times.append(call.now.milliseconds)
            installIds.append(metadata.installId)
            names.append(metadata.deviceName)
            models.append(metadata.deviceModel)
            versions.append(metadata.appVersion)
            versionKeys.append(metadata.appVersionKey)
            builds.append(metadata.appBuild)
            locales.append(metadata.locale)
            zones.append(metadata.timeZone)
            latitudes.append(metadata.location?.lat)
            longitudes.append(metadata.location?.lon)
            accuracies.append(metadata.location?.accuracy)
        }
        var binds = PostgresBindings(capacity: 18)
        for column in [apps, deviceIds, registrationIds, tokens, systems] { binds.append(column) }
        binds.append(osVersions)
        binds.append(times)
        for column in [installIds, names, models, versions, versionKeys, builds, locales, zones] { binds.append(column) }
        for column in [latitudes, longitudes, accuracies] { binds.append(column) }
        let sql = """
            INSERT INTO devices (\(Self.deviceColumns))
            SELECT app_id, device_id, registration_id, device_token, os, os_version, at, at, TRUE,
                install_id, device_name, device_model, app_version, app_version_key, app_build, locale, time_zone,
                location_lat, location_lon, location_accuracy
            FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::bigint[],
                $8::text[], $9::text[], $10::text[], $11::text[], $12::text[], $13::text[], $14::text[], $15::text[],
                $16::float8[], $17::float8[], $18::float8[])
                AS given (app_id, device_id, registration_id, device_token, os, os_version, at,
                    install_id, device_name, device_model, app_version, app_version_key, app_build, locale, time_zone,
                    location_lat, location_lon, location_accuracy)
            \(Self.deviceConflict)
            RETURNING id, app_id, device_id, registration_id
            """
        var devices: [DeviceKey: (id: Int64, registrationId: String)] = [:]
        devices.reserveCapacity(rows.count)
        for try await (id, app, deviceId, registrationId) in try await connection.query(
            PostgresQuery(unsafeSQL: sql, binds: binds), logger: logger
        ).decode((Int64, String, String, String).self) {
            devices[DeviceKey(app: app, deviceId: deviceId)] = (id, registrationId)
        }
        return devices
    }

    func ensureChannels(_ connection: PostgresConnection, logger: Logger) async throws -> [ChannelKey: Int64] {
        var ids: [ChannelKey: Int64] = [:]
        for group in channelGroups() {
            let names = group.names.map(\.rawValue)
            var binds = PostgresBindings(capacity: 3)
            binds.append(group.app)
            binds.append(names)
            binds.append(group.created)
            // Two statements, as through SQLKit: the select's snapshot must see a channel that a concurrent
            // batch created while this insert waited on it (one statement's snapshot would not).
            try await connection.query(
                PostgresQuery(
                    unsafeSQL: """
                        INSERT INTO channels (app_id, name, created_at) SELECT $1, unnest($2::text[]), $3
                        ON CONFLICT (app_id, name) DO NOTHING
                        """, binds: binds), logger: logger)
            var lookup = PostgresBindings(capacity: 2)
            lookup.append(group.app)
            lookup.append(names)
            let sql = "SELECT id, name FROM channels WHERE app_id = $1 AND name = ANY($2::text[])"
            for try await (id, name) in try await connection.query(PostgresQuery(unsafeSQL: sql, binds: lookup), logger: logger)
                .decode((Int64, String).self)
            {
                ids[ChannelKey(app: group.app, name: try ChannelName(validating: name))] = id
            }
        }
        return ids
    }

    func upsertRegistrations(
        _ connection: PostgresConnection, logger: Logger, devices: [DeviceKey: (id: Int64, registrationId: String)],
        channels: [ChannelKey: Int64]
    ) async throws -> [RegistrationKey: String] {
        let rows = try registrationRows(devices: devices, channels: channels)
        guard !rows.isEmpty else { return [:] }
        var channelIds: [Int64] = []
        var deviceIds: [Int64] = []
        var registrationIds: [String] = []
        var times: [Int64] = []
        var expirations = NullableArray<Int64>()
        for (key, call) in rows {
            channelIds.append(key.channel)
            deviceIds.append(key.device)
            registrationIds.append(Self.newId())
            expirations.append(call.request.expiration?.timestamp.milliseconds)
            times.append(call.now.milliseconds)
        }
        var binds = PostgresBindings(capacity: 5)
        binds.append(channelIds)
        binds.append(deviceIds)
        binds.append(registrationIds)
        binds.append(expirations)
        binds.append(times)
        let sql = """
            INSERT INTO registrations (channel_id, device_id, registration_id, expires_at, created_at, updated_at)
            SELECT channel_id, device_id, registration_id, expires_at, at, at
            FROM unnest($1::bigint[], $2::bigint[], $3::text[], $4::bigint[], $5::bigint[])
                AS given (channel_id, device_id, registration_id, expires_at, at)
            \(Self.registrationConflict)
            RETURNING channel_id, device_id, registration_id
            """
        var ids: [RegistrationKey: String] = [:]
        ids.reserveCapacity(rows.count)
        for try await (channel, device, registrationId) in try await connection.query(
            PostgresQuery(unsafeSQL: sql, binds: binds), logger: logger
        ).decode((Int64, Int64, String).self) {
            ids[RegistrationKey(channel: channel, device: device)] = registrationId
        }
        return ids
    }
}

/// A one-dimensional PostgreSQL array whose elements may be NULL, in the binary format PostgresNIO uses
/// for `[Element]` (which has no form for nil elements).
struct NullableArray<Element: PostgresArrayEncodable & PostgresNonThrowingEncodable>: PostgresNonThrowingEncodable {
    private var elements: [Element?] = []

    mutating func append(_ element: Element?) { elements.append(element) }

    static var psqlType: PostgresDataType { Element.psqlArrayType }
    static var psqlFormat: PostgresFormat { .binary }

    func encode<JSONEncoder: PostgresJSONEncoder>(into buffer: inout ByteBuffer, context: PostgresEncodingContext<JSONEncoder>) {
        // Dimensions, whether NULLs may be present, the element type; then per dimension its length
        // and lower bound (1); then each element as a length (-1 for NULL) and its bytes.
        buffer.writeInteger(elements.isEmpty ? 0 : 1, as: Int32.self)
        buffer.writeInteger(elements.contains(where: { $0 == nil }) ? 1 : 0, as: Int32.self)
        buffer.writeInteger(Element.psqlType.rawValue)
        guard !elements.isEmpty else { return }
        buffer.writeInteger(Int32(elements.count))
        buffer.writeInteger(1, as: Int32.self)
        for element in elements {
            guard let element else {
                buffer.writeInteger(-1, as: Int32.self)
                continue
            }
            let lengthIndex = buffer.writerIndex
            buffer.writeInteger(0, as: Int32.self)
            let start = buffer.writerIndex
            element.encode(into: &buffer, context: context)
            buffer.setInteger(Int32(buffer.writerIndex - start), at: lengthIndex)
        }
    }
}
