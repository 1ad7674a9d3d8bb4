import HeraldCore
import SQLKit

/// The delivery statistics: written by the fan-outs' checkpoints (`recordStats`), read per minute or
/// hour, rolled up and pruned by the sweeper.
extension SQLMessageStore {
    /// The count columns of `delivery_minutes` and `delivery_hours`, in one order.
    static let statsColumns = ["sent"] + FailureClass.allCases.map(\.column) + ["tokens_removed"]

    /// Slices share a shard of a bucket's row in turn (see migration 0027).
    static let statsShards = 16

    /// Adds a checkpoint's counts to its app's minute and to its message's second, in the checkpoint's
    /// transaction (after every other row it locks, so the shared rows are held only until the commit).
    static func recordStats(
        _ db: any SQLDatabase, _ checkpoint: FanOutCheckpoint, byProvider: [PushProvider: ProviderCounts], at: Int64
    ) async throws {
        let shard = checkpoint.slice % statsShards
        let minute = StatsStep.minute.bucket(Timestamp(milliseconds: at)).milliseconds
        let additions = statsColumns.map { "\($0) = delivery_minutes.\($0) + excluded.\($0)" }.joined(separator: ", ")
        for (provider, counts) in byProvider.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            let tally = tally(counts, failures: checkpoint.failures[provider] ?? [:])
            guard !tally.isZero else { continue }
            try await db.raw(
                """
                INSERT INTO delivery_minutes (app_id, bucket, provider, shard, \(unsafeRaw: statsColumns.joined(separator: ", ")))
                SELECT app_id, \(bind: minute), \(bind: provider.rawValue), \(bind: shard), \(values(tally))
                FROM messages WHERE id = \(bind: checkpoint.messageId)
                ON CONFLICT (app_id, bucket, provider, shard) DO UPDATE SET \(unsafeRaw: additions)
                """
            ).run()
        }
        guard checkpoint.sent + checkpoint.failed > 0 else { return }
        try await db.raw(
            """
            INSERT INTO message_seconds (message_id, at_second, shard, sent, failed)
            VALUES (\(bind: checkpoint.messageId), \(bind: at / 1000), \(bind: shard), \(bind: checkpoint.sent), \(bind: checkpoint.failed))
            ON CONFLICT (message_id, at_second, shard) DO UPDATE SET
                sent = message_seconds.sent + excluded.sent, failed = message_seconds.failed + excluded.failed
            """
        ).run()
    }

    /// A provider's counts of a checkpoint as the statistics keep them: failures without a class are `other`.
    static func tally(_ counts: ProviderCounts, failures: [FailureClass: Int64]) -> DeliveryTally {
        var failed = failures
        let classified = failures.values.reduce(0, +)
        if counts.failed > classified { failed[.other, default: 0] += counts.failed - classified }
        return DeliveryTally(sent: counts.sent, failed: failed, tokensRemoved: counts.tokensRemoved)
    }

    /// The bind list of a tally in `statsColumns` order.
    static func values(_ tally: DeliveryTally) -> SQLQueryString {
        let numbers = [tally.sent] + FailureClass.allCases.map { tally.failed[$0] ?? 0 } + [tally.tokensRemoved]
        return numbers.map { "\(bind: $0)" as SQLQueryString }.joined(separator: ", ")
    }

    static func tally(_ row: any SQLRow) throws -> DeliveryTally {
        var failed: [FailureClass: Int64] = [:]
        for failure in FailureClass.allCases { failed[failure] = try row.decode(column: failure.column, as: Int64.self) }
        return DeliveryTally(
            sent: try row.decode(column: "sent", as: Int64.self), failed: failed,
            tokensRemoved: try row.decode(column: "tokens_removed", as: Int64.self))
    }

    public func deliveryStats(app: String, from: Timestamp, to: Timestamp, step: StatsStep) async throws -> [DeliveryStatsPoint] {
        // PostgreSQL's SUM of a BIGINT is a NUMERIC: cast back.
        let sums = Self.statsColumns.map { "CAST(SUM(\($0)) AS BIGINT) AS \($0)" }.joined(separator: ", ")
        let width = String(step.milliseconds)
        // Minutes grouped into the step's buckets; for hours, with the hours already rolled up. A bucket
        // of either table lies wholly inside one step's bucket (the buckets are aligned), so the two add up.
        let from = step.bucket(from).milliseconds
        let range: SQLQueryString = "app_id = \(bind: app) AND bucket >= \(bind: from) AND bucket < \(bind: to.milliseconds)"
        let columns = Self.statsColumns.joined(separator: ", ")
        func bucketed(_ table: String) -> SQLQueryString {
            "SELECT bucket - (bucket % \(unsafeRaw: width)) AS at, provider, \(unsafeRaw: columns) FROM \(unsafeRaw: table) WHERE \(range)"
        }
        // One statement, so one snapshot: a roll-up that commits meanwhile cannot show a minute in both tables.
        let rows: SQLQueryString =
            step == .hour ? "\(bucketed("delivery_minutes")) UNION ALL \(bucketed("delivery_hours"))" : bucketed("delivery_minutes")
        let points = try await backend.read { db -> [String: DeliveryStatsPoint] in
            var points: [String: DeliveryStatsPoint] = [:]
            for row in try await db.raw("SELECT at, provider, \(unsafeRaw: sums) FROM (\(rows)) buckets GROUP BY at, provider").all() {
                guard let provider = PushProvider(rawValue: try row.decode(column: "provider", as: String.self)) else { continue }
                let at = try row.decode(column: "at", as: Int64.self)
                points["\(at) \(provider.rawValue)"] = DeliveryStatsPoint(
                    at: Timestamp(milliseconds: at), provider: provider, tally: try Self.tally(row))
            }
            return points
        }
        return points.values.sorted { ($0.at, $0.provider.rawValue) < ($1.at, $1.provider.rawValue) }
    }

    public func rollUpDeliveryStats(minutesBefore: Timestamp, hoursBefore: Timestamp) async throws -> StatsRollUp {
        var report = StatsRollUp()
        let cutoff = StatsStep.hour.bucket(minutesBefore).milliseconds
        // An hour of minutes per transaction, oldest first, so a first roll-up of a long backlog does not
        // hold the write lock for long.
        while true {
            let folded = try await backend.write { db -> Int? in
                guard
                    let oldest = try await db.raw("SELECT MIN(bucket) AS oldest FROM delivery_minutes WHERE bucket < \(bind: cutoff)")
                        .first()?.decode(column: "oldest", as: Int64?.self)
                else { return nil }
                let end = min(cutoff, StatsStep.hour.bucket(Timestamp(milliseconds: oldest)).milliseconds + StatsStep.hour.milliseconds)
                // Deleted first and added from what the DELETE returned: a row is folded by one roll-up only.
                let rows = try await db.raw(
                    """
                    DELETE FROM delivery_minutes WHERE bucket < \(bind: end)
                    RETURNING app_id, bucket, provider, \(unsafeRaw: Self.statsColumns.joined(separator: ", "))
                    """
                ).all()
                var hours: [String: (app: String, hour: Int64, provider: String, tally: DeliveryTally)] = [:]
                for row in rows {
                    let app = try row.decode(column: "app_id", as: String.self)
                    let provider = try row.decode(column: "provider", as: String.self)
                    let hour = StatsStep.hour.bucket(Timestamp(milliseconds: try row.decode(column: "bucket", as: Int64.self))).milliseconds
                    let key = "\(app)\u{0}\(hour)\u{0}\(provider)"
                    let tally = try Self.tally(row)
                    hours[key] = (app, hour, provider, (hours[key]?.tally ?? DeliveryTally()) + tally)
                }
                let additions = Self.statsColumns.map { "\($0) = delivery_hours.\($0) + excluded.\($0)" }.joined(separator: ", ")
                for (_, hour) in hours.sorted(by: { $0.key < $1.key }) where !hour.tally.isZero {
                    try await db.raw(
                        """
                        INSERT INTO delivery_hours (app_id, bucket, provider, shard, \(unsafeRaw: Self.statsColumns.joined(separator: ", ")))
                        VALUES (\(bind: hour.app), \(bind: hour.hour), \(bind: hour.provider), 0, \(Self.values(hour.tally)))
                        ON CONFLICT (app_id, bucket, provider, shard) DO UPDATE SET \(unsafeRaw: additions)
                        """
                    ).run()
                }
                return rows.count
            }
            guard let folded else { break }
            report.minutesRolledUp += folded
        }
        report.hoursPruned = try await backend.write { db in
            try await db.raw("DELETE FROM delivery_hours WHERE bucket < \(bind: hoursBefore.milliseconds) RETURNING bucket").all().count
        }
        return report
    }

    public func sendsPerSecond(app: String, messageId: String) async throws -> [MessageSecond] {
        try await backend.read { db in
            try await db.raw(
                """
                SELECT s.at_second, CAST(SUM(s.sent) AS BIGINT) AS sent, CAST(SUM(s.failed) AS BIGINT) AS failed
                FROM message_seconds s JOIN messages m ON m.id = s.message_id
                WHERE s.message_id = \(bind: messageId) AND m.app_id = \(bind: app)
                GROUP BY s.at_second ORDER BY s.at_second
                """
            ).all().map { row in
                MessageSecond(
                    at: Timestamp(milliseconds: try row.decode(column: "at_second", as: Int64.self) * 1000),
                    sent: try row.decode(column: "sent", as: Int64.self), failed: try row.decode(column: "failed", as: Int64.self))
            }
        }
    }
}

extension FailureClass {
    /// Its column in `delivery_minutes` and `delivery_hours`.
    var column: String { "failed_\(rawValue)" }
}
