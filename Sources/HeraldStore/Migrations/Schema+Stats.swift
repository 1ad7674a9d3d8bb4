extension Schema {
    /// 0027 on: delivery statistics (issue 53).
    static let stats: [Migration] = [
        Migration(name: "0027_delivery_stats") { _ in
            // Per app, push service and minute (`delivery_minutes`) or hour (`delivery_hours`): what the
            // fan-outs' checkpoints recorded in it, added in the checkpoint's own transaction, so a page sent
            // again after a crash (never checkpointed the first time) is counted once. `bucket`: the start
            // of the minute or hour, epoch milliseconds. `shard`: the slice's number modulo 16 (0 in hours), so
            // the slices of one big fan-out do not all wait for one row's lock until their commits. The sweeper rolls minutes older than
            // `stats.minuteHours` into hours and deletes hours older than `stats.hourDays`.
            let counts = """
                sent BIGINT NOT NULL DEFAULT 0,
                    failed_invalid_token BIGINT NOT NULL DEFAULT 0,
                    failed_throttled BIGINT NOT NULL DEFAULT 0,
                    failed_service BIGINT NOT NULL DEFAULT 0,
                    failed_auth BIGINT NOT NULL DEFAULT 0,
                    failed_other BIGINT NOT NULL DEFAULT 0,
                    tokens_removed BIGINT NOT NULL DEFAULT 0
                """
            return ["delivery_minutes", "delivery_hours"].flatMap { table in
                [
                    """
                    CREATE TABLE \(table) (
                        app_id TEXT NOT NULL,
                        bucket BIGINT NOT NULL,
                        provider TEXT NOT NULL,
                        shard INTEGER NOT NULL DEFAULT 0,
                        \(counts),
                        PRIMARY KEY (app_id, bucket, provider, shard)
                    )
                    """,
                    "CREATE INDEX \(table)_by_bucket ON \(table) (bucket)",
                ]
            } + [
                // A message's sends and failures per second, from the same checkpoints: the console's
                // sparkline of a fan-out, kept as long as the message.
                """
                CREATE TABLE message_seconds (
                    message_id TEXT NOT NULL REFERENCES messages (id) ON DELETE CASCADE,
                    at_second BIGINT NOT NULL,
                    shard INTEGER NOT NULL DEFAULT 0,
                    sent BIGINT NOT NULL DEFAULT 0,
                    failed BIGINT NOT NULL DEFAULT 0,
                    PRIMARY KEY (message_id, at_second, shard)
                )
                """
            ]
        }
    ]
}
