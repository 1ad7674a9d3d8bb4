import HeraldCore
import SQLKit

/// An app's APNs broadcast channel as Herald keeps it.
public struct BroadcastChannelRecord: Sendable, Equatable {
    /// Apple's id (base64).
    public var channelId: String
    /// 0: no message stored; 1: the most recent message stored (8 hours).
    public var storagePolicy: Int
    /// The Herald channel whose Live Activity updates and ends go to it, if any.
    public var boundChannel: ChannelName?
    public var createdAt: Timestamp

    public init(channelId: String, storagePolicy: Int, boundChannel: ChannelName?, createdAt: Timestamp) {
        self.channelId = channelId
        self.storagePolicy = storagePolicy
        self.boundChannel = boundChannel
        self.createdAt = createdAt
    }
}

/// The app's APNs broadcast channels (Apple makes them; Herald keeps their ids and bindings).
public struct BroadcastChannelStore: Sendable {
    let backend: any SQLBackend

    public init(backend: any SQLBackend) { self.backend = backend }

    /// Keeps a channel Apple made; bound to `channel` (taking that binding from any other channel of the app).
    public func insert(app: String, _ record: BroadcastChannelRecord) async throws {
        try await backend.write { db in
            if let bound = record.boundChannel { try await Self.unbind(db, app: app, channel: bound) }
            try await db.raw(
                """
                INSERT INTO apns_channels (app_id, channel_id, storage_policy, bound_channel, created_at)
                VALUES (\(bind: app), \(bind: record.channelId), \(bind: record.storagePolicy), \(bind: record.boundChannel?.rawValue),
                        \(bind: record.createdAt.milliseconds))
                """
            ).run()
        }
    }

    public func channels(app: String) async throws -> [BroadcastChannelRecord] {
        try await backend.read { db in
            try await db.raw(
                """
                SELECT \(Self.columns) FROM apns_channels
                WHERE app_id = \(bind: app) ORDER BY created_at, channel_id
                """
            ).all().map(Self.record)
        }
    }

    public func channel(app: String, id: String) async throws -> BroadcastChannelRecord? {
        try await backend.read { db in
            try await db.raw(
                """
                SELECT \(Self.columns) FROM apns_channels
                WHERE app_id = \(bind: app) AND channel_id = \(bind: id)
                """
            ).first().map(Self.record)
        }
    }

    /// The APNs channel the Herald channel is bound to, if any.
    public func bound(app: String, channel: ChannelName) async throws -> BroadcastChannelRecord? {
        try await backend.read { db in
            try await db.raw(
                """
                SELECT \(Self.columns) FROM apns_channels
                WHERE app_id = \(bind: app) AND bound_channel = \(bind: channel.rawValue)
                """
            ).first().map(Self.record)
        }
    }

    /// Binds the APNs channel to a Herald channel (nil: unbinds it); false when the app has no such channel.
    public func bind(app: String, id: String, to channel: ChannelName?) async throws -> Bool {
        try await backend.write { db in
            if let channel { try await Self.unbind(db, app: app, channel: channel) }
            return try await db.raw(
                """
                UPDATE apns_channels SET bound_channel = \(bind: channel?.rawValue)
                WHERE app_id = \(bind: app) AND channel_id = \(bind: id) RETURNING channel_id
                """
            ).first() != nil
        }
    }

    public func delete(app: String, id: String) async throws -> Bool {
        try await backend.write { db in
            try await db.raw("DELETE FROM apns_channels WHERE app_id = \(bind: app) AND channel_id = \(bind: id) RETURNING channel_id")
                .first() != nil
        }
    }

    /// What `record` reads, in every query that lists channels.
    static let columns: SQLQueryString = "channel_id, storage_policy, bound_channel, created_at"

    static func unbind(_ db: any SQLDatabase, app: String, channel: ChannelName) async throws {
        try await db.raw(
            "UPDATE apns_channels SET bound_channel = NULL WHERE app_id = \(bind: app) AND bound_channel = \(bind: channel.rawValue)"
        ).run()
    }

    static func record(_ row: any SQLRow) throws -> BroadcastChannelRecord {
        BroadcastChannelRecord(
            channelId: try row.decode(column: "channel_id", as: String.self),
            storagePolicy: try row.decode(column: "storage_policy", as: Int.self),
            boundChannel: try row.decode(column: "bound_channel", as: String?.self).map { try ChannelName(validating: $0) },
            createdAt: Timestamp(milliseconds: try row.decode(column: "created_at", as: Int64.self)))
    }
}
