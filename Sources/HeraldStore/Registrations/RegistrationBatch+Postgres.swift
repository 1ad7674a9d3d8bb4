import HeraldCore
import Logging
import NIOCore
import PostgresNIO

/// A registration batch on PostgreSQL: the same three upserts as through SQLKit, as one statement (three
/// data-modifying CTEs), with each column sent as one array bind and spread into rows by `unnest`,
/// instead of a bind per value.
///
/// Through SQLKit every value of a batch is an `Encodable` that PostgresKit translates one by one (a
/// bind per value, 20 per device), and every returned row is decoded through `Decodable`: that
/// translation was most of PostgreSQL's extra CPU per registration against SQLite's (BENCHMARKS.md).
/// Here each column is encoded once, straight into PostgresNIO's binary array format, and the returned
/// rows are decoded as typed tuples. The statement text is fixed, so PostgreSQL parses one shape
/// whatever the batch's size, and there is no bind limit to chunk for. One statement is one round trip
/// where the SQLKit path needs five (each a message through NIO and PostgresNIO's state machine, and a
/// parse and plan in the server).
///
/// The channels' upsert is `DO UPDATE` (of the name, to itself) rather than `DO NOTHING`, so it returns
/// every named channel's id, also one that a concurrent batch created after this statement's snapshot
/// was taken (the upsert waits for that batch and then sees its row); `DO NOTHING` would return neither
/// it nor, in the same statement, a select of it.
extension RegistrationBatch {
    func write(_ connection: PostgresConnection, logger: Logger) async throws -> [RegistrationReceipt] {
        let deviceCalls = deviceRows()
        guard !deviceCalls.isEmpty else { return [] }
        var binds = PostgresBindings(capacity: 26)
        Self.bindDevices(deviceCalls, to: &binds)
        // Channels: $19 apps, $20 names, $21 creation times.
        var channelApps: [String] = []
        var channelNames: [String] = []
        var channelTimes: [Int64] = []
        for group in channelGroups() {
            for name in group.names {
                channelApps.append(group.app)
                channelNames.append(name.rawValue)
                channelTimes.append(group.created)
            }
        }
        binds.append(channelApps)
        binds.append(channelNames)
        binds.append(channelTimes)
        // Registrations by (app, device, channel): $22…$27.
        var apps: [String] = []
        var deviceIds: [String] = []
        var names: [String] = []
        var registrationIds: [String] = []
        var expirations = NullableArray<Int64>()
        var times: [Int64] = []
        for (key, call) in namedRegistrations() {
            apps.append(call.app)
            deviceIds.append(call.request.deviceId.rawValue)
            names.append(key.channel.rawValue)
            registrationIds.append(Self.newId())
            expirations.append(call.request.expiration?.timestamp.milliseconds)
            times.append(call.now.milliseconds)
        }
        binds.append(apps)
        binds.append(deviceIds)
        binds.append(names)
        binds.append(registrationIds)
        binds.append(expirations)
        binds.append(times)

        var devices: [DeviceKey: (id: Int64, registrationId: String)] = [:]
        var channels: [ChannelKey: Int64] = [:]
        var registrations: [RegistrationKey: String] = [:]
        let rows: [Statement.Row]
        do {
            rows = try await Self.run(Statement(bindings: binds), on: connection, logger: logger)
        } catch {
            // PostgresNIO keeps a failed preparation as the statement's state on its connection: every
            // later run there would fail the same way. Any failure but the deadlocks and serialisation
            // failures that are retried closes the connection (the pool opens a fresh one); the write
            // fails as it would have, and its transaction is rolled back with the connection.
            if !PostgresBackend.isRetryable(error) { try? await connection.close() }
            throw error
        }
        for (kind, first, second, app, text, registrationId) in rows {
            switch kind {
            case "d":
                guard let app, let text else { throw StoreInvariantViolation("a device row without its key") }
                devices[DeviceKey(app: app, deviceId: text)] = (first, registrationId)
            case "c":
                guard let app, let text else { throw StoreInvariantViolation("a channel row without its key") }
                channels[ChannelKey(app: app, name: try ChannelName(validating: text))] = first
            default:
                guard let second else { throw StoreInvariantViolation("a registration row without its device") }
                registrations[RegistrationKey(channel: first, device: second)] = registrationId
            }
        }
        return try receipts(devices: devices, channels: channels, registrationIds: registrations)
    }

    /// The batch's statement, prepared once per connection: PostgreSQL then neither parses nor (after
    /// its first five runs, once it has settled on a generic plan) plans it again. Parsing and planning
    /// it anew took about 0.9 ms of PostgreSQL's 4 ms per batch (BENCHMARKS.md section 21).
    struct Statement: PostgresPreparedStatement {
        static let name = "herald_registration_batch"
        static let sql = RegistrationBatch.postgresStatement
        typealias Row = (String, Int64, Int64?, String?, String?, String)
        let bindings: PostgresBindings

        func makeBindings() -> PostgresBindings { bindings }
        func decodeRow(_ row: PostgresRow) throws -> Row { try row.decode(Row.self) }
    }

    private static func run(_ statement: Statement, on connection: PostgresConnection, logger: Logger) async throws -> [Statement.Row] {
        var rows: [Statement.Row] = []
        for try await row in try await connection.execute(statement, logger: logger) { rows.append(row) }
        return rows
    }

    /// The devices' 18 columns, $1…$18.
    private static func bindDevices(_ rows: [Call], to binds: inout PostgresBindings) {
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
            registrationIds.append(newId())
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
        for column in [apps, deviceIds, registrationIds, tokens, systems] { binds.append(column) }
        binds.append(osVersions)
        binds.append(times)
        for column in [installIds, names, models, versions, versionKeys, builds, locales, zones] { binds.append(column) }
        for column in [latitudes, longitudes, accuracies] { binds.append(column) }
    }

    /// The whole batch: devices upserted, channels upserted, registrations upserted from both, and every
    /// row's key and id returned, tagged `d`, `c` or `r`.
    static let postgresStatement = """
        WITH upserted_devices AS (
            INSERT INTO devices (\(RegistrationBatch.deviceColumns))
            SELECT app_id, device_id, registration_id, device_token, os, os_version, at, at, TRUE,
                install_id, device_name, device_model, app_version, app_version_key, app_build, locale, time_zone,
                location_lat, location_lon, location_accuracy
            FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::bigint[],
                $8::text[], $9::text[], $10::text[], $11::text[], $12::text[], $13::text[], $14::text[], $15::text[],
                $16::float8[], $17::float8[], $18::float8[])
                AS given (app_id, device_id, registration_id, device_token, os, os_version, at,
                    install_id, device_name, device_model, app_version, app_version_key, app_build, locale, time_zone,
                    location_lat, location_lon, location_accuracy)
            \(RegistrationBatch.deviceConflict)
            RETURNING id, app_id, device_id, registration_id
        ), upserted_channels AS (
            INSERT INTO channels (app_id, name, created_at)
            SELECT * FROM unnest($19::text[], $20::text[], $21::bigint[])
            ON CONFLICT (app_id, name) DO UPDATE SET name = excluded.name
            RETURNING id, app_id, name
        ), upserted_registrations AS (
            INSERT INTO registrations (channel_id, device_id, registration_id, expires_at, created_at, updated_at)
            SELECT c.id, d.id, given.registration_id, given.expires_at, given.at, given.at
            FROM unnest($22::text[], $23::text[], $24::text[], $25::text[], $26::bigint[], $27::bigint[])
                AS given (app_id, device_id, name, registration_id, expires_at, at)
            JOIN upserted_devices d ON d.app_id = given.app_id AND d.device_id = given.device_id
            JOIN upserted_channels c ON c.app_id = given.app_id AND c.name = given.name
            ORDER BY c.id, d.id
            \(RegistrationBatch.registrationConflict)
            RETURNING channel_id, device_id, registration_id
        )
        SELECT 'd', id, NULL::bigint, app_id, device_id, registration_id FROM upserted_devices
        UNION ALL SELECT 'c', id, NULL::bigint, app_id, name, '' FROM upserted_channels
        UNION ALL SELECT 'r', channel_id, device_id, NULL::text, NULL::text, registration_id FROM upserted_registrations
        """
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
