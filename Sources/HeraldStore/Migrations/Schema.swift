/// Herald's schema, as the list of migrations in the order they apply.
///
/// Hot reads and the indexes that serve them:
/// - fan-out pages a channel's live registrations by device key: `registrations (channel_id, device_id)` (unique);
/// - the sweeper finds expired registrations: partial index `registrations (expires_at)` where it is set;
/// - GET/DELETE of one device: `devices (app_id, device_id)` (unique), then `registrations (device_id)`;
/// - the dispatcher finds due messages: partial index `messages (due_at)` over live ones;
/// - claimable slices: `message_slices` holds only the slices of occurrences being sent (a few rows).
enum Schema {
    /// Every migration, oldest first. A new one goes at the end of the last list, never between two others.
    static let migrations: [Migration] = first + later + liveActivities + idempotency + stats

    /// 0001 to 0008: devices, channels, registrations, keys, messages and their slices, the registry.
    static let first: [Migration] = [
        Migration(name: "0001_devices_channels_registrations") { dialect in
            [
                """
                CREATE TABLE devices (
                    id \(dialect.identity),
                    app_id TEXT NOT NULL,
                    device_id TEXT NOT NULL,
                    registration_id TEXT NOT NULL,
                    device_token TEXT NOT NULL,
                    os TEXT NOT NULL,
                    os_version TEXT,
                    created_at BIGINT NOT NULL,
                    last_seen_at BIGINT NOT NULL,
                    is_active BOOLEAN NOT NULL DEFAULT TRUE,
                    UNIQUE (app_id, device_id)
                )
                """,
                """
                CREATE TABLE channels (
                    id \(dialect.identity),
                    app_id TEXT NOT NULL,
                    name TEXT NOT NULL,
                    created_at BIGINT NOT NULL,
                    UNIQUE (app_id, name)
                )
                """,
                """
                CREATE TABLE registrations (
                    id \(dialect.identity),
                    channel_id BIGINT NOT NULL REFERENCES channels (id) ON DELETE CASCADE,
                    device_id BIGINT NOT NULL REFERENCES devices (id) ON DELETE CASCADE,
                    registration_id TEXT NOT NULL,
                    expires_at BIGINT,
                    created_at BIGINT NOT NULL,
                    updated_at BIGINT NOT NULL,
                    UNIQUE (channel_id, device_id)
                )
                """,
                "CREATE INDEX registrations_by_device ON registrations (device_id)",
                "CREATE INDEX registrations_by_expiry ON registrations (expires_at) WHERE expires_at IS NOT NULL",
            ]
        },
        Migration(name: "0002_app_keys") { _ in
            [
                """
                CREATE TABLE app_keys (
                    api_key TEXT PRIMARY KEY,
                    app_id TEXT NOT NULL,
                    role TEXT NOT NULL,
                    created_at BIGINT NOT NULL
                )
                """,
                "CREATE INDEX app_keys_by_app ON app_keys (app_id)",
            ]
        },
        Migration(name: "0003_messages") { _ in
            [
                // One row per published message. The payload is stored built, so the dispatcher never
                // re-validates; counts are summed over occurrences; fanout_cursor is the checkpoint of
                // the current occurrence (device key); lease_* say which dispatcher is sending it.
                """
                CREATE TABLE messages (
                    id TEXT PRIMARY KEY,
                    app_id TEXT NOT NULL,
                    channel TEXT NOT NULL,
                    publisher_id TEXT,
                    policy TEXT NOT NULL,
                    broadcast INTEGER NOT NULL,
                    singlecast TEXT,
                    payload TEXT,
                    push_type TEXT,
                    priority INTEGER,
                    apns_expiration BIGINT,
                    collapse_id TEXT,
                    publish_at BIGINT,
                    repeat_every BIGINT,
                    repeat_expires_at BIGINT,
                    status TEXT NOT NULL,
                    error_message TEXT,
                    due_at BIGINT,
                    occurrences BIGINT NOT NULL DEFAULT 0,
                    fanout_cursor BIGINT NOT NULL DEFAULT 0,
                    sent BIGINT NOT NULL DEFAULT 0,
                    failed BIGINT NOT NULL DEFAULT 0,
                    pending BIGINT NOT NULL DEFAULT 0,
                    tokens_removed BIGINT NOT NULL DEFAULT 0,
                    tokens_deactivated BIGINT NOT NULL DEFAULT 0,
                    lease_owner TEXT,
                    lease_until BIGINT,
                    created_at BIGINT NOT NULL,
                    updated_at BIGINT NOT NULL
                )
                """,
                "CREATE INDEX messages_due ON messages (due_at) WHERE status IN ('scheduled', 'running')",
            ]
        },
        Migration(name: "0004_message_slices") { _ in
            [
                // One row per slice of the occurrence being sent: a key range of the recipients (after_key,
                // exclusive, to up_to_key, inclusive; NULL: no end), its checkpoint, the counts it has not
                // yet folded into its message, and its own lease. Rows live only while an occurrence runs.
                // occurrence: which occurrence of the message the slice belongs to, so a stalled run of an
                // earlier one can never write into a later one; checkpoint_seq: checkpoints written, so a
                // checkpoint written again after a lost answer is recognised and not counted twice.
                // The messages table's fanout_cursor and lease columns are no longer used.
                """
                CREATE TABLE message_slices (
                    message_id TEXT NOT NULL REFERENCES messages (id) ON DELETE CASCADE,
                    slice INTEGER NOT NULL,
                    after_key BIGINT NOT NULL,
                    up_to_key BIGINT,
                    fanout_cursor BIGINT NOT NULL,
                    done BOOLEAN NOT NULL DEFAULT FALSE,
                    sent BIGINT NOT NULL DEFAULT 0,
                    failed BIGINT NOT NULL DEFAULT 0,
                    pending BIGINT NOT NULL DEFAULT 0,
                    tokens_removed BIGINT NOT NULL DEFAULT 0,
                    tokens_deactivated BIGINT NOT NULL DEFAULT 0,
                    lease_owner TEXT,
                    lease_until BIGINT,
                    occurrence BIGINT NOT NULL DEFAULT 0,
                    checkpoint_seq BIGINT NOT NULL DEFAULT 0,
                    created_at BIGINT NOT NULL,
                    updated_at BIGINT NOT NULL,
                    PRIMARY KEY (message_id, slice)
                )
                """,
                // A message that was running when this migration ran goes on as one slice from its checkpoint.
                """
                INSERT INTO message_slices (message_id, slice, after_key, up_to_key, fanout_cursor, occurrence, created_at, updated_at)
                SELECT id, 0, 0, NULL, fanout_cursor, occurrences, updated_at, updated_at FROM messages WHERE status = 'running'
                """,
                """
                UPDATE messages SET lease_owner = NULL, lease_until = NULL, pending = 0, fanout_cursor = 0
                WHERE lease_owner IS NOT NULL OR status = 'running'
                """,
            ]
        },
        Migration(name: "0005_turns") { _ in
            [
                // When a periodic job (the sweeper) last ran on this database, so that several instances
                // sharing it run the job once per interval between them, not once each.
                "CREATE TABLE herald_turns (name TEXT PRIMARY KEY, last_run_at BIGINT NOT NULL)"
            ]
        },
        Migration(name: "0006_device_metadata") { _ in
            // What the app tells Herald about each install (all optional; a later call updates what it
            // sends and keeps the rest). One column per statement: SQLite adds one column at a time.
            [
                ("install_id", "TEXT"), ("device_name", "TEXT"), ("device_model", "TEXT"), ("app_version", "TEXT"),
                ("app_build", "TEXT"), ("locale", "TEXT"), ("time_zone", "TEXT"),
                ("location_lat", "DOUBLE PRECISION"),
                ("location_lon", "DOUBLE PRECISION"), ("location_accuracy", "DOUBLE PRECISION"),
            ].map { column, type in "ALTER TABLE devices ADD COLUMN \(column) \(type)" }
        },
        Migration(name: "0007_launches_and_listing") { dialect in
            // Launches: counts on the device, and a capped history of each launch. Who switched a
            // device off (admin or apns) and the admin's reason, which a launch check answers.
            [
                "ALTER TABLE devices ADD COLUMN launch_count BIGINT NOT NULL DEFAULT 0",
                "ALTER TABLE devices ADD COLUMN first_launch_at BIGINT",
                "ALTER TABLE devices ADD COLUMN last_launch_at BIGINT",
                "ALTER TABLE devices ADD COLUMN deactivated_by TEXT",
                "ALTER TABLE devices ADD COLUMN inactive_reason TEXT",
                // Devices deactivated before this migration were deactivated for their token.
                "UPDATE devices SET deactivated_by = 'apns' WHERE is_active = FALSE",
                """
                CREATE TABLE launches (
                    id \(dialect.identity),
                    device_id BIGINT NOT NULL REFERENCES devices (id) ON DELETE CASCADE,
                    launched_at BIGINT NOT NULL,
                    app_version TEXT,
                    app_build TEXT
                )
                """,
                // A device's launches newest first (history pages, and the cap's OFFSET).
                "CREATE INDEX launches_by_device ON launches (device_id, id)",
                // The admin's device listing pages an app's devices by key.
                "CREATE INDEX devices_by_app ON devices (app_id, id)",
            ]
        },
        Migration(name: "0008_delivery_history") { dialect in
            [
                // Each notification's final outcome per device, written with the fan-out's page
                // checkpoint. By app and device id (not the device row): a device removed because
                // APNs said its token is gone keeps the record of it until it is erased or pruned.
                """
                CREATE TABLE deliveries (
                    id \(dialect.identity),
                    app_id TEXT NOT NULL,
                    device_id TEXT NOT NULL,
                    message_id TEXT NOT NULL,
                    delivered_at BIGINT NOT NULL,
                    outcome TEXT NOT NULL,
                    reason TEXT
                )
                """,
                // A device's history newest first; pruning by age.
                "CREATE INDEX deliveries_by_device ON deliveries (app_id, device_id, id)",
                "CREATE INDEX deliveries_by_time ON deliveries (delivered_at)",
            ]
        },
    ]
}
