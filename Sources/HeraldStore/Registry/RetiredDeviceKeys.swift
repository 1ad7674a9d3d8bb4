import HeraldCore
import SQLKit

/// The delivery history is filed under each device row's key (`deliveries.device_key`, migration 0023), so
/// a fan-out page's entries land side by side in `deliveries_by_device_key`. A device row goes when its
/// token is gone, its last registration ends or it unregisters, and a device that comes back gets a new
/// row and key; its history is still its own. So every delete of device rows first keeps the keys of
/// those with history in `retired_device_keys`, against their app and device id, and a device's history
/// is read under its row's key and its retired ones. The history keeps the device id too, and readers
/// match it: SQLite may give a deleted row's key to the next device it inserts.
enum RetiredDeviceKeys {
    /// Keeps the keys of the devices `condition` selects (a `WHERE` on `devices`) before the caller deletes
    /// them: those with history, or all of them when `always` (a checkpoint's token removal: other fan-outs
    /// reaching the same device may still write its history). The sweeper forgets a retired key once no
    /// history is left under it (`SQLDeviceRegistry.pruneHistory`).
    ///
    /// A device deleted by the sweeper or an unregistration while its first notification ever is in flight
    /// has no history yet, so its key is not kept, and that one entry is not listed (it goes by age).
    static func retire(_ db: any SQLDatabase, where condition: SQLQueryString, always: Bool = false) async throws {
        let hasHistory: SQLQueryString =
            always ? "" : "AND EXISTS (SELECT 1 FROM deliveries h WHERE h.app_id = devices.app_id AND h.device_key = devices.id)"
        try await db.raw(
            """
            INSERT INTO retired_device_keys (app_id, device_id, device_key)
            SELECT app_id, device_id, id FROM devices WHERE \(condition) \(hasHistory)
            ON CONFLICT DO NOTHING
            """
        ).run()
    }

    /// The keys `deviceId`'s history is filed under, and whether it has a device row now; empty when it
    /// has neither a row nor retired keys.
    static func keys(_ db: any SQLDatabase, app: String, deviceId: String) async throws -> (keys: [Int64], live: Bool) {
        let rows = try await db.raw(
            """
            SELECT id AS device_key, 1 AS live FROM devices WHERE app_id = \(bind: app) AND device_id = \(bind: deviceId)
            UNION ALL
            SELECT device_key, 0 AS live FROM retired_device_keys WHERE app_id = \(bind: app) AND device_id = \(bind: deviceId)
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
