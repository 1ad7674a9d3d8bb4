import HeraldCore
import SQLKit

extension SQLRegistrationStore {
    /// One page of a message's recipients after `cursor`, by device key: active devices of a listed
    /// operating system with a live registration in the channel (or, for a singlecast, in any channel),
    /// that match the message's segment if it has one.
    ///
    /// A channel's page takes the next `limit` live registrations by key first, then looks their devices
    /// up by primary key, keeping those that pass the device's conditions, so a page reads about `limit`
    /// rows of each table wherever it starts. Two things make that so whatever the planner estimates:
    /// - the limit sits inside the subquery: joining the tables and limiting the result let PostgreSQL
    ///   read `devices` in key order from its first row (a merge join), so a page's cost grew with its
    ///   position and a fan-out's with the square of the channel;
    /// - the range is stated on the pair `(channel_id, device_id)`, which only the unique index on that
    ///   pair can serve: stated on `device_id` alone, PostgreSQL sometimes walked `registrations_by_device`
    ///   and read every other channel's registrations in the range too.
    /// The devices are looked up by key even before PostgreSQL has statistics (`StoreDialect.keyLookup`).
    /// The price is that a page may hold fewer recipients than `limit` (devices switched off, of another
    /// OS, outside the segment), even none; `next` says where to go on.
    public func recipients(
        app: String, filter: RecipientFilter, after cursor: Int64, limit: Int,
        now: Timestamp
    ) async throws -> KeysetPage<Recipient> {
        guard !filter.systems.isEmpty, filter.devices?.isEmpty != true, limit > 0 else { return KeysetPage(items: [], next: nil) }
        let systems: [any Encodable & Sendable] = filter.systems.map(\.rawValue)
        let upTo = filter.upTo ?? Int64.max
        let segment = filter.segment.sqlClause
        return try await backend.read { db in
            // Read by position (`StoreRow`): a fan-out reads every recipient through here.
            let columns = ["device_key", "device_id", "device_token", "os"]
            let rows: [StoreRow]
            if filter.devices != nil || (filter.audience.map { $0.count != 1 } ?? false) {
                // A singlecast names its devices: found through (app_id, device_id), at most the list's length
                // (1,000), then sorted. The LIMIT keeps the planner from folding that lookup into the outer query:
                // folded, PostgreSQL without statistics walked the app's devices in key order (devices_by_app)
                // to save the sort, every device of the app for a page of two.
                // A template's audience of several channels (or every one) walks the app's devices by key
                // (devices_by_app), each once, keeping those with a live registration in one of them.
                let from: SQLQueryString
                if let devices = filter.devices {
                    let ids: [any Encodable & Sendable] = devices
                    from =
                        "(SELECT * FROM devices WHERE app_id = \(bind: app) AND device_id IN (\(binds: ids)) LIMIT \(bind: devices.count)) d"
                } else {
                    from = "devices d"
                }
                let inChannels: SQLQueryString
                if filter.devices == nil, let audience = filter.audience, !audience.isEmpty {
                    let names: [any Encodable & Sendable] = audience.map(\.rawValue)
                    inChannels = " AND r.channel_id IN (SELECT id FROM channels WHERE app_id = \(bind: app) AND name IN (\(binds: names)))"
                } else {
                    inChannels = ""
                }
                rows = try await db.storeRows(
                    """
                    SELECT d.id AS device_key, d.device_id, d.device_token, d.os
                    FROM \(from)
                    WHERE d.app_id = \(bind: app) AND d.id > \(bind: cursor) AND d.id <= \(bind: upTo)
                      AND d.is_active = \(bind: true) AND d.os IN (\(binds: systems))\(segment)
                      AND EXISTS (SELECT 1 FROM registrations r WHERE r.device_id = d.id\(inChannels)
                                  AND (r.expires_at IS NULL OR r.expires_at > \(bind: now.milliseconds)))
                    ORDER BY d.id
                    LIMIT \(bind: limit)
                    """, columns: columns)
            } else {
                let channel = Self.channelKey(app: app, name: filter.audience?.first ?? filter.channel)
                rows = try await db.storeRows(
                    """
                    SELECT r.device_id AS device_key, d.device_id, d.device_token, d.os
                    FROM (SELECT channel_id, device_id FROM registrations
                          WHERE (channel_id, device_id) > (\(channel), \(bind: cursor)) AND (channel_id, device_id) <= (\(channel), \(bind: upTo))
                            AND (expires_at IS NULL OR expires_at > \(bind: now.milliseconds))
                          ORDER BY channel_id, device_id
                          LIMIT \(bind: limit)) r
                    \(StoreDialect(db).keyLookup(
                        "devices", as: "d", columns: ["device_id", "device_token", "os"],
                        on: "d.id = r.device_id AND d.is_active = \(bind: true) AND d.os IN (\(binds: systems))\(segment)"))
                    ORDER BY r.device_id
                    """, columns: columns)
            }
            let page = try Self.keysetPage(rows, limit: limit) { row, key in
                try row.text(1).map { deviceId in
                    Recipient(
                        key: key, deviceId: deviceId, deviceToken: try row.requiredText(2),
                        os: try DeviceOS(parsing: try row.requiredText(3)))
                }
            }
            guard let target = filter.liveActivity else { return page }
            return try await Self.liveActivityRecipients(db, page, target: target, now: now)
        }
    }
}

extension SQLRegistrationStore {
    /// A page from the rows of up to `limit` candidates in key order (the key is each row's first column):
    /// `item` makes each candidate's item, or nil for one whose device failed the conditions (a LEFT JOIN
    /// left its columns NULL). The page goes on after its last candidate, and is the last when fewer than
    /// `limit` candidates came back.
    static func keysetPage<Item: Sendable>(
        _ rows: [StoreRow], limit: Int, _ item: (StoreRow, Int64) throws -> Item?
    ) throws -> KeysetPage<Item> {
        var items: [Item] = []
        items.reserveCapacity(rows.count)
        var last: Int64?
        for row in rows {
            let key = try row.int64(0)
            last = key
            if let made = try item(row, key) { items.append(made) }
        }
        return KeysetPage(items: items, next: rows.count == limit ? last : nil)
    }

    /// The key of the app's channel of that name, as a scalar subquery (NULL when there is none, which
    /// compares false with everything, so a page of a missing channel is empty).
    static func channelKey(app: String, name: ChannelName) -> SQLQueryString {
        "(SELECT id FROM channels WHERE app_id = \(bind: app) AND name = \(bind: name.rawValue))"
    }
}
