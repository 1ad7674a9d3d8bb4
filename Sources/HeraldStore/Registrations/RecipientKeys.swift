import HeraldCore
import SQLKit

/// The device keys a fan-out walks: a channel's registrations by device key, or (a template's audience
/// of several channels or all, `wholeApp`) the app's devices by key. Both come through an index that has
/// them in order, so the edges are two seeks, not a scan. The fan-out's slicing and the console's
/// recipient estimate both measure this span.
struct RecipientKeys {
    /// `FROM … WHERE …` selecting the keys.
    let source: SQLQueryString
    /// The key's column in `source`.
    let key: String

    /// The keys of `channel` (nil when the app has no such channel) or of the whole app.
    static func of(_ db: any SQLDatabase, app: String, channel: String, wholeApp: Bool) async throws -> RecipientKeys? {
        if wholeApp { return ofApp(app) }
        guard
            let channelId = try await db.raw("SELECT id FROM channels WHERE app_id = \(bind: app) AND name = \(bind: channel)").first()
                .map({ try $0.decode(column: "id", as: Int64.self) })
        else { return nil }
        return ofChannel(id: channelId)
    }

    /// The keys of every device of `app`.
    static func ofApp(_ app: String) -> RecipientKeys {
        RecipientKeys(source: "FROM devices WHERE app_id = \(bind: app)", key: "id")
    }

    /// The keys of the channel whose id is `channelId` (looked up already, as the claim's due query does).
    static func ofChannel(id channelId: Int64) -> RecipientKeys {
        RecipientKeys(source: "FROM registrations WHERE channel_id = \(bind: channelId)", key: "device_id")
    }

    /// The lowest and highest key and how many keys there are, counted up to `cap`, in one statement; nil
    /// when there are none.
    func span(_ db: any SQLDatabase, countingUpTo cap: Int) async throws -> (keys: ClosedRange<Int64>, count: Int)? {
        guard
            let row = try await db.raw(
                """
                SELECT (SELECT \(ident: key) \(source) ORDER BY \(ident: key) ASC LIMIT 1) AS low,
                       (SELECT \(ident: key) \(source) ORDER BY \(ident: key) DESC LIMIT 1) AS high,
                       (SELECT COUNT(*) FROM (SELECT 1 AS one \(source) LIMIT \(bind: cap)) capped) AS members
                """
            ).first(),
            let low = try row.decode(column: "low", as: Int64?.self), let high = try row.decode(column: "high", as: Int64?.self)
        else { return nil }
        return (low...high, try row.decode(column: "members", as: Int.self))
    }

    /// The lowest and highest key, or nil when there are none.
    func edges(_ db: any SQLDatabase) async throws -> ClosedRange<Int64>? {
        try await span(db, countingUpTo: 0)?.keys
    }
}

extension SQLRegistrationStore {
    public func recipientKeyRange(app: String, filter: RecipientFilter) async throws -> ClosedRange<Int64>? {
        if let devices = filter.devices, devices.isEmpty { return nil }
        return try await backend.read { db in
            if let devices = filter.devices {
                let ids: [any Encodable & Sendable] = devices
                return try await db.raw(
                    "SELECT MIN(id) AS low, MAX(id) AS high FROM devices WHERE app_id = \(bind: app) AND device_id IN (\(binds: ids))"
                ).first().flatMap { row in
                    guard let low = try row.decode(column: "low", as: Int64?.self),
                        let high = try row.decode(column: "high", as: Int64?.self)
                    else { return nil }
                    return low...high
                }
            }
            let wholeApp = filter.audience.map { $0.count != 1 } ?? false
            let channel = filter.audience?.first ?? filter.channel
            return try await RecipientKeys.of(db, app: app, channel: channel.rawValue, wholeApp: wholeApp)?.edges(db)
        }
    }
}
