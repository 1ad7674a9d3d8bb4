import HeraldCore
import SQLKit

/// The delivery history is filed under each device row's key (`deliveries.device_key`, migration 0023), so
/// a fan-out page's entries land side by side in `deliveries_by_device_key`. A device row goes when its
/// token is gone, its last registration ends, it unregisters or it is erased, and a device that comes back
/// gets a new row (on SQLite sometimes the same key, which SQLite gives out again once the highest row is
/// deleted). Its history is still its own. So device rows are deleted only through `deleteDevices`, which
/// keeps the keys of those with history in `retired_device_keys`, against their app and device id, and a
/// device's history is read under its row's key and its retired ones. The history keeps the device id too,
/// and readers match it, since a reused key may file two devices' history.
enum RetiredDeviceKeys {
    /// A deleted device row.
    struct Deleted: Sendable {
        let key: Int64
        let app: String
        let deviceId: String
    }

    /// Retired keys a device's listing reads at most (the newest), beside its row's: each is a device
    /// removed and registered again within `history.days`.
    static let listedPerDevice = 100

    /// Deletes the devices `condition` selects (a `WHERE` on `devices`; their registrations and launches go
    /// with them, ON DELETE CASCADE), then keeps the keys of those with history, or of all of them when
    /// `always`: a checkpoint's token removal and an erasure, after which fan-outs that read the device
    /// before may still write its history. Deleting first takes the device rows' locks before the retired
    /// keys' (PostgreSQL), in the order the sweep's `lockDevices` takes them, and judges `condition` once.
    /// The sweeper forgets a retired key once no history is left under it (`SQLDeviceRegistry.pruneHistory`).
    ///
    /// A device deleted without history while a send to it is in flight (its first since its history was
    /// last empty) is not kept, and the entry that send writes is not listed (it goes by age).
    @discardableResult
    static func deleteDevices(_ db: any SQLDatabase, where condition: SQLQueryString, always: Bool = false) async throws -> [Deleted] {
        let deleted = try await db.raw("DELETE FROM devices WHERE \(condition) RETURNING id, app_id, device_id").all().map {
            Deleted(
                key: try $0.decode(column: "id", as: Int64.self), app: try $0.decode(column: "app_id", as: String.self),
                deviceId: try $0.decode(column: "device_id", as: String.self))
        }
        try await retire(db, deleted, always: always)
        return deleted
    }

    /// Keeps `devices`' keys: those with history under them, or all when `always`.
    private static func retire(_ db: any SQLDatabase, _ devices: [Deleted], always: Bool) async throws {
        // SQLite needs a WHERE before ON CONFLICT in an INSERT … SELECT (or it reads ON as a join's).
        let which: SQLQueryString =
            always
            ? "WHERE 1 = 1"
            : """
            WHERE EXISTS (SELECT 1 FROM deliveries h WHERE h.app_id = v.column1 AND h.device_key = v.column3 AND h.device_id = v.column2)
            """
        for chunk in devices.chunks(ofCount: 500) {
            let values = chunk.map { device -> SQLQueryString in "(\(bind: device.app), \(bind: device.deviceId), \(bind: device.key))" }
            try await db.raw(
                """
                INSERT INTO retired_device_keys (app_id, device_id, device_key)
                SELECT v.column1, v.column2, v.column3 FROM (VALUES \(values.joined(separator: ", "))) AS v \(which)
                ON CONFLICT DO NOTHING
                """
            ).run()
        }
    }

    /// The keys `deviceId`'s history is filed under (its row's and its newest `listedPerDevice` retired
    /// ones), and whether it has a device row now; empty when it has neither.
    static func keys(_ db: any SQLDatabase, app: String, deviceId: String) async throws -> (keys: [Int64], live: Bool) {
        let rows = try await db.raw(
            """
            SELECT id AS device_key, 1 AS live FROM devices WHERE app_id = \(bind: app) AND device_id = \(bind: deviceId)
            UNION ALL
            SELECT device_key, 0 AS live FROM (
                SELECT device_key FROM retired_device_keys WHERE app_id = \(bind: app) AND device_id = \(bind: deviceId)
                ORDER BY id DESC LIMIT \(literal: listedPerDevice)) retired
            """
        ).all()
        var keys: [Int64] = []
        var live = false
        for row in rows {
            let key = try row.decode(column: "device_key", as: Int64.self)
            if !keys.contains(key) { keys.append(key) }
            if try row.decode(column: "live", as: Int.self) == 1 { live = true }
        }
        return (keys, live)
    }
}
