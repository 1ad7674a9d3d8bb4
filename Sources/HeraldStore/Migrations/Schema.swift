/// Herald's schema, as the list of migrations in the order they apply.
///
/// Hot reads and the indexes that serve them:
/// - fan-out pages a channel's live registrations by device key: `registrations (channel_id, device_id)` (unique);
/// - the sweeper finds expired registrations: partial index `registrations (expires_at)` where it is set;
/// - GET/DELETE of one device: `devices (app_id, device_id)` (unique), then `registrations (device_id)`.
enum Schema {
    static let migrations: [Migration] = [
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
    ]
}
