extension Schema {
    /// 0009 on: segments, webhooks, message contents per provider, counts by provider, channel listing.
    static let later: [Migration] = [
        Migration(name: "0009_publish_segments", backfill: AppVersionKeys.backfill) { _ in
            [
                // A publish's segment (JSON), applied to each page of recipients by the fan-out.
                "ALTER TABLE messages ADD COLUMN segment TEXT",
                // Each device's app version as 36 sortable digits (AppVersion.key), which a segment
                // compares in SQL; the backfill computes it for the versions devices already have.
                "ALTER TABLE devices ADD COLUMN app_version_key TEXT",
            ]
        },
        Migration(name: "0010_webhook_events") { dialect in
            [
                // The webhook outbox: events written in the transaction of their change, deleted once the
                // app's receiver acknowledges them. `lease_*` keeps two instances from posting one at once.
                """
                CREATE TABLE webhook_events (
                    id \(dialect.identity),
                    event_id TEXT NOT NULL,
                    app_id TEXT NOT NULL,
                    type TEXT NOT NULL,
                    payload TEXT NOT NULL,
                    created_at BIGINT NOT NULL,
                    attempts INTEGER NOT NULL DEFAULT 0,
                    next_attempt_at BIGINT NOT NULL,
                    lease_owner TEXT,
                    lease_until BIGINT,
                    last_error TEXT
                )
                """,
                // Due events, oldest first.
                "CREATE INDEX webhook_events_due ON webhook_events (next_attempt_at, id)",
                "CREATE INDEX webhook_events_by_app ON webhook_events (app_id)",
            ]
        },
        Migration(name: "0011_webhook_event_devices", backfill: WebhookEventDevices.backfill) { _ in
            [
                // The device an event is about (its payload holds the token): erasing the device erases them.
                "ALTER TABLE webhook_events ADD COLUMN device_id TEXT",
                "CREATE INDEX webhook_events_by_device ON webhook_events (app_id, device_id)",
            ]
        },
        Migration(name: "0012_finished_messages") { _ in
            [
                // Finished messages by when they finished, for the sweeper's pruning (messages.retentionDays).
                "CREATE INDEX messages_finished ON messages (updated_at) WHERE status IN ('published', 'failed', 'cancelled')"
            ]
        },
        Migration(name: "0013_message_contents", backfill: MessageContentsMove.backfill) { _ in
            [
                // Every provider's content of a message, as JSON (`MessageContents`: `apns`, and `fcm` for
                // Android); the backfill moves the APNs columns of existing rows into it.
                "ALTER TABLE messages ADD COLUMN contents TEXT"
            ]
        },
        Migration(name: "0014_drop_apns_columns") { _ in
            // The APNs columns 0013 moved into `contents`. One statement per column: SQLite drops one at a time.
            ["payload", "push_type", "priority", "apns_expiration", "collapse_id"].map { "ALTER TABLE messages DROP COLUMN \($0)" }
        },
        Migration(name: "0015_platform_counts") { _ in
            // The part of each count that went to ANDROID devices (FCM), on the message and on each slice;
            // the rest went to Apple devices (`DeliveryCounts.ios`). Counts recorded before this migration
            // have no platform and are shown as Apple's (a message that also went to Android through a
            // build without this column shows those sends under ios). One column a statement (SQLite).
            ["messages", "message_slices"].flatMap { table in
                ["android_sent", "android_failed", "android_tokens_removed", "android_tokens_deactivated"].map {
                    "ALTER TABLE \(table) ADD COLUMN \($0) BIGINT NOT NULL DEFAULT 0"
                }
            }
        },
        Migration(name: "0016_channel_listing") { dialect in
            // When the sweeper first found the channel without registrations (null: it has some, or the
            // removal of empty channels is off), for sweeper.emptyChannelDays. PostgreSQL also gets the
            // channels by app in byte order of names, the order the listing pages in (SQLite's unique
            // index on (app_id, name) already is: its TEXT compares bytes).
            ["ALTER TABLE channels ADD COLUMN empty_since BIGINT"]
                + (dialect.kind == .postgres ? [#"CREATE INDEX channels_by_name_bytes ON channels (app_id, name COLLATE "C")"#] : [])
        },
        Migration(name: "0017_counts_by_provider") { _ in
            // A message's finished counts by the provider that sent them, one row per provider: slice -1
            // holds what has been folded into the message, slice n what slice n of the running occurrence
            // has checkpointed (folded into -1 and deleted with its slice). A new provider needs no new
            // column. The totals (and `pending`) stay on messages and message_slices.
            //
            // The counts 0015 kept per platform move here: the ANDROID part to FCM, the rest to APNs (the
            // only two providers there were). Then 0015's columns go, one statement each (SQLite).
            let android = ["android_sent", "android_failed", "android_tokens_removed", "android_tokens_deactivated"]
            func carry(_ table: String, key: String, slice: String) -> [String] {
                [
                    """
                    INSERT INTO message_counts (message_id, slice, provider, sent, failed, tokens_removed, tokens_deactivated)
                    SELECT \(key), \(slice), 'fcm', android_sent, android_failed, android_tokens_removed, android_tokens_deactivated
                    FROM \(table) WHERE android_sent + android_failed + android_tokens_removed + android_tokens_deactivated > 0
                    """,
                    """
                    INSERT INTO message_counts (message_id, slice, provider, sent, failed, tokens_removed, tokens_deactivated)
                    SELECT \(key), \(slice), 'apns', sent - android_sent, failed - android_failed,
                        tokens_removed - android_tokens_removed, tokens_deactivated - android_tokens_deactivated
                    FROM \(table)
                    WHERE sent + failed + tokens_removed + tokens_deactivated
                        - (android_sent + android_failed + android_tokens_removed + android_tokens_deactivated) > 0
                    """,
                ]
            }
            return [
                """
                CREATE TABLE message_counts (
                    message_id TEXT NOT NULL REFERENCES messages (id) ON DELETE CASCADE,
                    slice INTEGER NOT NULL,
                    provider TEXT NOT NULL,
                    sent BIGINT NOT NULL DEFAULT 0,
                    failed BIGINT NOT NULL DEFAULT 0,
                    tokens_removed BIGINT NOT NULL DEFAULT 0,
                    tokens_deactivated BIGINT NOT NULL DEFAULT 0,
                    PRIMARY KEY (message_id, slice, provider)
                )
                """
            ] + carry("messages", key: "id", slice: "-1") + carry("message_slices", key: "message_id", slice: "slice")
                + ["messages", "message_slices"].flatMap { table in android.map { "ALTER TABLE \(table) DROP COLUMN \($0)" } }
        },
        Migration(name: "0018_push_templates") { _ in
            [
                // An app's push templates: the checked admin body as JSON, one row per name.
                """
                CREATE TABLE push_templates (
                    app_id TEXT NOT NULL,
                    name TEXT NOT NULL,
                    body TEXT NOT NULL,
                    created_at BIGINT NOT NULL,
                    updated_at BIGINT NOT NULL,
                    PRIMARY KEY (app_id, name)
                )
                """,
                // The template a message was sent with, for its status and history.
                "ALTER TABLE messages ADD COLUMN template_name TEXT",
                // A template's audience when it is not one channel: a JSON list of channel names whose
                // devices it goes to (any of them, each device once), or [] for every device of the app.
                // NULL: the message's channel, as for every publish.
                "ALTER TABLE messages ADD COLUMN audience_channels TEXT",
            ]
        },
        Migration(name: "0019_publish_subscribe") { dialect in
            [
                // Each channel's feed of messages for subscribers: one row per occurrence of a PUBSUB or BOTH
                // message (`content`: its data and headers as JSON), in `id` order (on PostgreSQL a channel's appends take a transaction lock, so ids
                // commit in order and a reader that has seen id n never later finds a smaller one). Ids are
                // never reused (SQLite's AUTOINCREMENT), even once every row has been pruned.
                """
                CREATE TABLE pubsub_messages (
                    id \(dialect.kind == .sqlite ? "INTEGER PRIMARY KEY AUTOINCREMENT" : dialect.identity),
                    app_id TEXT NOT NULL,
                    channel TEXT NOT NULL,
                    message_id TEXT NOT NULL,
                    publisher_id TEXT,
                    content TEXT NOT NULL,
                    published_at BIGINT NOT NULL
                )
                """,
                "CREATE INDEX pubsub_messages_feed ON pubsub_messages (app_id, channel, id)",
                "CREATE INDEX pubsub_messages_age ON pubsub_messages (published_at)",
                // Subscriptions: where each has read its channel's feed up to, and when it was last used.
                """
                CREATE TABLE subscriptions (
                    id TEXT PRIMARY KEY,
                    app_id TEXT NOT NULL,
                    channel TEXT NOT NULL,
                    subscriber_id TEXT,
                    selector TEXT,
                    position BIGINT NOT NULL,
                    created_at BIGINT NOT NULL,
                    last_seen_at BIGINT NOT NULL
                )
                """,
                "CREATE INDEX subscriptions_by_app ON subscriptions (app_id)",
                "CREATE INDEX subscriptions_idle ON subscriptions (last_seen_at)",
                // What a message gives its subscribers (JSON {"data", "headers"}), kept while it may have
                // occurrences to come; NULL for a PUSH message. `fed_occurrences`: how many of its
                // occurrences are in the feed (the first is fed when published, the others when they start).
                "ALTER TABLE messages ADD COLUMN pubsub TEXT",
                "ALTER TABLE messages ADD COLUMN fed_occurrences BIGINT NOT NULL DEFAULT 0",
            ]
        },
        Migration(name: "0020_console_sessions") { _ in
            [
                // Signed-in console sessions (issue 25), by a SHA-256 of the cookie's token; `key_hash`: a
                // SHA-256 of the admin key it was opened with, so removing that key from the configuration
                // ends the session.
                """
                CREATE TABLE console_sessions (
                    token_hash TEXT PRIMARY KEY,
                    app_id TEXT NOT NULL,
                    key_hash TEXT NOT NULL,
                    csrf TEXT NOT NULL,
                    created_at BIGINT NOT NULL,
                    last_seen_at BIGINT NOT NULL
                )
                """,
                "CREATE INDEX console_sessions_idle ON console_sessions (last_seen_at)",
            ]
        },
        Migration(name: "0021_message_listing") { _ in
            [
                // The app's messages newest first (the console's history, GET …/messaging/messages), and the
                // same within one channel.
                "CREATE INDEX messages_by_app ON messages (app_id, created_at, id)",
                "CREATE INDEX messages_by_channel ON messages (app_id, channel, created_at, id)",
            ]
        },
        Migration(name: "0022_failure_reasons") { _ in
            [
                // A message's failures by reason (the console's message page). Partial: sends that succeeded,
                // nearly every row, are not in it, so it costs the fan-out's history writes little.
                "CREATE INDEX deliveries_failures ON deliveries (message_id, outcome, reason) WHERE outcome <> 'sent'"
            ]
        },
        Migration(name: "0023_history_by_device_key") { dialect in
            [
                // A device's history is filed under its row's key as well as its id (issue 27): a fan-out
                // page is consecutive keys, so a checkpoint's rows land side by side in the index instead of
                // one to a leaf as apps' scattered device ids put them (BENCHMARKS.md section 32). The id
                // stays in the row: SQLite may give a deleted device's key to the next device.
                "ALTER TABLE deliveries ADD COLUMN device_key BIGINT",
                // The keys of removed devices that have history, so it stays findable by device id until it
                // is pruned or erased (`RetiredDeviceKeys`).
                """
                CREATE TABLE retired_device_keys (
                    id \(dialect.identity),
                    app_id TEXT NOT NULL,
                    device_id TEXT NOT NULL,
                    device_key BIGINT NOT NULL,
                    UNIQUE (app_id, device_id, device_key)
                )
                """,
                // Dropped before the rows are filled in, so the update does not maintain it.
                "DROP INDEX deliveries_by_device",
                // History of devices removed before this migration: a key of its own for each, below every
                // row's key, never given to a device.
                """
                INSERT INTO retired_device_keys (app_id, device_id, device_key)
                SELECT app_id, device_id, -ROW_NUMBER() OVER (ORDER BY app_id, device_id)
                FROM (SELECT DISTINCT app_id, device_id FROM deliveries h
                      WHERE NOT EXISTS (SELECT 1 FROM devices d WHERE d.app_id = h.app_id AND d.device_id = h.device_id)) removed
                """,
                // Every row once: its device's row key, or its removed device's retired key.
                """
                UPDATE deliveries SET device_key = COALESCE(
                    (SELECT d.id FROM devices d WHERE d.app_id = deliveries.app_id AND d.device_id = deliveries.device_id),
                    (SELECT r.device_key FROM retired_device_keys r WHERE r.app_id = deliveries.app_id AND r.device_id = deliveries.device_id))
                """,
                // A device's history newest first, and the sweeper's per-device cap, by app and key. Not the
                // device id as well: it would make every entry's index entry a few times larger (SQLite at
                // 30 entries a device: 11 µs an entry against 5, BENCHMARKS.md section 32) for the rare key
                // SQLite gives a second device.
                "CREATE INDEX deliveries_by_device_key ON deliveries (app_id, device_key, id)",
            ]
        },
    ]
}
