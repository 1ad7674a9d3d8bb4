extension Schema {
    /// 0026 on: `Idempotency-Key` on publish (issue 52).
    static let idempotency: [Migration] = [
        Migration(name: "0026_idempotency_keys") { _ in
            [
                // A publish's key, written in the transaction that inserts its message (so a key exists iff
                // its message was stored), with what the publish answered, for a retry to get the same answer.
                // `request_hash`: SHA-256 of the method, the path without the API key, and the body. Honoured
                // for 24 hours from `created_at`, then replaced by the next use or deleted by the sweeper.
                """
                CREATE TABLE idempotency_keys (
                    app_id TEXT NOT NULL,
                    idempotency_key TEXT NOT NULL,
                    request_hash TEXT NOT NULL,
                    message_id TEXT NOT NULL,
                    status INTEGER NOT NULL,
                    body TEXT NOT NULL,
                    created_at BIGINT NOT NULL,
                    PRIMARY KEY (app_id, idempotency_key)
                )
                """,
                "CREATE INDEX idempotency_keys_by_age ON idempotency_keys (created_at)",
            ]
        }
    ]
}
