extension Schema {
    /// 0024 on: iOS Live Activities (issue 51).
    static let liveActivities: [Migration] = [
        Migration(name: "0024_live_activities") { dialect in
            [
                // A device's push-to-start token per ActivityKit attributes type (one per device, app and type;
                // it rotates: a new one replaces the old). Goes with its device.
                """
                CREATE TABLE activity_start_tokens (
                    device_key BIGINT NOT NULL REFERENCES devices (id) ON DELETE CASCADE,
                    attributes_type TEXT NOT NULL,
                    token TEXT NOT NULL,
                    created_at BIGINT NOT NULL,
                    updated_at BIGINT NOT NULL,
                    PRIMARY KEY (device_key, attributes_type)
                )
                """,
                // A running (or ended, still shown) activity's update token, by the id the app gave it.
                // `expires_at`: when Apple no longer shows it (8 h running + 4 h on the Lock Screen after it
                // ends, or its dismissal date), for the sweeper. Goes with its device.
                """
                CREATE TABLE live_activities (
                    id \(dialect.identity),
                    device_key BIGINT NOT NULL REFERENCES devices (id) ON DELETE CASCADE,
                    activity_id TEXT NOT NULL,
                    attributes_type TEXT NOT NULL,
                    token TEXT NOT NULL,
                    started_at BIGINT NOT NULL,
                    updated_at BIGINT NOT NULL,
                    ended_at BIGINT,
                    expires_at BIGINT NOT NULL,
                    UNIQUE (device_key, activity_id)
                )
                """,
                "CREATE INDEX live_activities_by_type ON live_activities (device_key, attributes_type)",
                "CREATE INDEX live_activities_by_expiry ON live_activities (expires_at)",
                // A Live Activity publish's event target (JSON `LiveActivityTarget`); NULL for every other message.
                "ALTER TABLE messages ADD COLUMN live_activity TEXT",
                // The app's APNs broadcast channels (Apple's ids, made through Apple's channel management API),
                // each bound to at most one Herald channel and a Herald channel to at most one of them.
                """
                CREATE TABLE apns_channels (
                    app_id TEXT NOT NULL,
                    channel_id TEXT NOT NULL,
                    storage_policy INTEGER NOT NULL,
                    bound_channel TEXT,
                    created_at BIGINT NOT NULL,
                    PRIMARY KEY (app_id, channel_id)
                )
                """,
                "CREATE UNIQUE INDEX apns_channels_bound ON apns_channels (app_id, bound_channel)",
            ]
        },
        Migration(name: "0025_live_activity_messages") { _ in
            [
                // The app's Live Activity publishes, newest first (the console's Live Activities page), without
                // walking its other messages.
                "CREATE INDEX messages_live_activity ON messages (app_id, created_at, id) WHERE live_activity IS NOT NULL"
            ]
        },
    ]
}
