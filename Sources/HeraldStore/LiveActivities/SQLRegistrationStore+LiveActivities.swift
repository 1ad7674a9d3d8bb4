import HeraldCore
import SQLKit

extension SQLRegistrationStore {
    public func setStartToken(app: String, deviceId: String, attributesType: String, token: String, now: Timestamp) async throws
        -> LiveActivityWrite
    {
        try await backend.write { db in
            let (key, refusal) = try await Self.iosDevice(db, app: app, deviceId: deviceId)
            guard let key else { return refusal }
            try await db.raw(
                """
                INSERT INTO activity_start_tokens (device_key, attributes_type, token, created_at, updated_at)
                VALUES (\(bind: key), \(bind: attributesType), \(bind: token), \(bind: now.milliseconds), \(bind: now.milliseconds))
                ON CONFLICT (device_key, attributes_type) DO UPDATE SET token = excluded.token, updated_at = excluded.updated_at
                """
            ).run()
            return .stored(expiresAt: nil)
        }
    }

    public func removeStartToken(app: String, deviceId: String, attributesType: String) async throws -> Bool {
        try await backend.write { db in
            try await db.raw(
                """
                DELETE FROM activity_start_tokens
                WHERE device_key = (SELECT id FROM devices WHERE app_id = \(bind: app) AND device_id = \(bind: deviceId))
                  AND attributes_type = \(bind: attributesType)
                RETURNING device_key
                """
            ).first() != nil
        }
    }

    public func putActivity(
        app: String, deviceId: String, activityId: String, attributesType: String, token: String, now: Timestamp
    ) async throws -> LiveActivityWrite {
        let expiry = LiveActivityLifetime.expiry(startedAt: now, endedAt: nil)
        return try await backend.write { db in
            let (key, refusal) = try await Self.iosDevice(db, app: app, deviceId: deviceId)
            guard let key else { return refusal }
            // A new token for a known activity is a rotation: the start (and so the expiry) stays.
            let row = try await db.raw(
                """
                INSERT INTO live_activities (device_key, activity_id, attributes_type, token, started_at, updated_at, expires_at)
                VALUES (\(bind: key), \(bind: activityId), \(bind: attributesType), \(bind: token), \(bind: now.milliseconds),
                        \(bind: now.milliseconds), \(bind: expiry.milliseconds))
                ON CONFLICT (device_key, activity_id) DO UPDATE
                SET token = excluded.token, attributes_type = excluded.attributes_type, updated_at = excluded.updated_at
                RETURNING expires_at
                """
            ).first()
            return .stored(expiresAt: try row.map { Timestamp(milliseconds: try $0.decode(column: "expires_at", as: Int64.self)) })
        }
    }

    public func removeActivity(app: String, deviceId: String, activityId: String) async throws -> Bool {
        try await backend.write { db in
            try await db.raw(
                """
                DELETE FROM live_activities
                WHERE device_key = (SELECT id FROM devices WHERE app_id = \(bind: app) AND device_id = \(bind: deviceId))
                  AND activity_id = \(bind: activityId)
                RETURNING id
                """
            ).first() != nil
        }
    }

    public func endActivity(app: String, activityId: String, attributesType: String, now: Timestamp, dismissal: Timestamp?)
        async throws -> Bool
    {
        try await backend.write { db in
            let rows = try await db.raw(
                """
                SELECT a.id, a.started_at FROM live_activities a JOIN devices d ON d.id = a.device_key
                WHERE d.app_id = \(bind: app) AND a.activity_id = \(bind: activityId) AND a.attributes_type = \(bind: attributesType)
                """
            ).all()
            for row in rows {
                let started = Timestamp(milliseconds: try row.decode(column: "started_at", as: Int64.self))
                let expiry = LiveActivityLifetime.expiry(startedAt: started, endedAt: now, dismissal: dismissal)
                try await db.raw(
                    """
                    UPDATE live_activities SET ended_at = \(bind: now.milliseconds), expires_at = \(bind: expiry.milliseconds)
                    WHERE id = \(bind: try row.decode(column: "id", as: Int64.self))
                    """
                ).run()
            }
            return !rows.isEmpty
        }
    }

    public func liveActivities(app: String, deviceId: String, now: Timestamp) async throws -> DeviceLiveActivities? {
        try await backend.read { db in
            guard
                let device = try await db.raw(
                    "SELECT id FROM devices WHERE app_id = \(bind: app) AND device_id = \(bind: deviceId)"
                ).first()
            else { return nil }
            let key = try device.decode(column: "id", as: Int64.self)
            let starts = try await db.raw(
                """
                SELECT attributes_type, token, updated_at FROM activity_start_tokens
                WHERE device_key = \(bind: key) ORDER BY attributes_type
                """
            ).all().map { row in
                DeviceLiveActivities.StartToken(
                    attributesType: try row.decode(column: "attributes_type", as: String.self),
                    token: try row.decode(column: "token", as: String.self),
                    updatedAt: Timestamp(milliseconds: try row.decode(column: "updated_at", as: Int64.self)))
            }
            let activities = try await db.raw(
                """
                SELECT activity_id, attributes_type, token, started_at, updated_at, ended_at, expires_at FROM live_activities
                WHERE device_key = \(bind: key) AND expires_at > \(bind: now.milliseconds)
                ORDER BY started_at DESC, activity_id
                """
            ).all().map { row in
                DeviceLiveActivities.Activity(
                    activityId: try row.decode(column: "activity_id", as: String.self),
                    attributesType: try row.decode(column: "attributes_type", as: String.self),
                    token: try row.decode(column: "token", as: String.self),
                    startedAt: Timestamp(milliseconds: try row.decode(column: "started_at", as: Int64.self)),
                    updatedAt: Timestamp(milliseconds: try row.decode(column: "updated_at", as: Int64.self)),
                    endedAt: try row.decode(column: "ended_at", as: Int64?.self).map(Timestamp.init(milliseconds:)),
                    expiresAt: Timestamp(milliseconds: try row.decode(column: "expires_at", as: Int64.self)))
            }
            return DeviceLiveActivities(startTokens: starts, activities: activities)
        }
    }

    public func deleteExpiredActivities(now: Timestamp, limit: Int, app: String?) async throws -> Int {
        let ofApp: SQLQueryString = app.map { " AND device_key IN (SELECT id FROM devices WHERE app_id = \(bind: $0))" } ?? ""
        return try await backend.write { db in
            try await db.raw(
                """
                DELETE FROM live_activities WHERE id IN (
                    SELECT id FROM live_activities WHERE expires_at <= \(bind: now.milliseconds)\(ofApp)
                    ORDER BY expires_at LIMIT \(bind: limit))
                RETURNING id
                """
            ).all().count
        }
    }

    /// The device's key when the app has it and it is an iOS device; otherwise why not.
    static func iosDevice(_ db: any SQLDatabase, app: String, deviceId: String) async throws -> (Int64?, LiveActivityWrite) {
        guard let row = try await db.raw("SELECT id, os FROM devices WHERE app_id = \(bind: app) AND device_id = \(bind: deviceId)").first()
        else { return (nil, .unknownDevice) }
        let os = try DeviceOS(parsing: try row.decode(column: "os", as: String.self))
        guard os == .ios else { return (nil, .notIOS(os)) }
        return (try row.decode(column: "id", as: Int64.self), .stored(expiresAt: nil))
    }

    /// A page's devices replaced by their Live Activity tokens of `target`: one recipient per token, in
    /// the page's key order, the page's `next` unchanged (a device's tokens are all on its page).
    static func liveActivityRecipients(
        _ db: any SQLDatabase, _ page: KeysetPage<Recipient>, target: LiveActivityTarget, now: Timestamp
    ) async throws -> KeysetPage<Recipient> {
        guard !page.items.isEmpty else { return page }
        let keys: [any Encodable & Sendable] = page.items.map(\.key)
        let rows: [StoreRow]
        if target.usesStartTokens {
            rows = try await db.storeRows(
                """
                SELECT device_key, token FROM activity_start_tokens
                WHERE device_key IN (\(binds: keys)) AND attributes_type = \(bind: target.attributesType)
                """, columns: ["device_key", "token"])
        } else {
            let one: SQLQueryString = target.activityId.map { " AND activity_id = \(bind: $0)" } ?? ""
            // A device ignores an update to an activity that has ended, so an update skips those an end was
            // published to. An end does not: it is marked ended just after it is stored, maybe before its
            // own fan-out reads this.
            let running: SQLQueryString = target.kind == .update ? " AND ended_at IS NULL" : ""
            rows = try await db.storeRows(
                """
                SELECT device_key, token FROM live_activities
                WHERE device_key IN (\(binds: keys)) AND attributes_type = \(bind: target.attributesType)
                  AND expires_at > \(bind: now.milliseconds)\(one)\(running)
                ORDER BY device_key, id
                """, columns: ["device_key", "token"])
        }
        var tokens: [Int64: [String]] = [:]
        for row in rows { tokens[try row.int64(0), default: []].append(try row.requiredText(1)) }
        var items: [Recipient] = []
        for device in page.items {
            for token in tokens[device.key] ?? [] {
                var recipient = device
                recipient.deviceToken = token
                items.append(recipient)
            }
        }
        return KeysetPage(items: items, next: page.next)
    }
}

/// Live Activity tokens a push service said are gone (APNs's 410, or a token it refused).
enum LiveActivityTokens {
    /// Deletes the device's push-to-start tokens and activities holding `token`; returns how many.
    static func delete(_ db: any SQLDatabase, deviceKey: Int64, token: String) async throws -> Int {
        let starts = try await db.raw(
            "DELETE FROM activity_start_tokens WHERE device_key = \(bind: deviceKey) AND token = \(bind: token) RETURNING device_key"
        ).all().count
        let activities = try await db.raw(
            "DELETE FROM live_activities WHERE device_key = \(bind: deviceKey) AND token = \(bind: token) RETURNING id"
        ).all().count
        return starts + activities
    }
}
