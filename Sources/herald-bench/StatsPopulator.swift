import HeraldStore
import SQLKit

/// `herald-bench populate --stats-days N`: N days of delivery statistics for the app, as a busy app's look:
/// every minute of the last `minuteHours` (48 by default, what the sweeper keeps) with rows for APNs, FCM
/// and Web Push in `shards` shards each (the slices of big fan-outs), and an hour's row per service before
/// that (what the roll-up leaves). Counts vary by minute, with some failures of each class.
struct StatsPopulator {
    let backend: any SQLBackend
    let app: String
    let days: Int
    let now: Int64
    var minuteHours = 48
    var shards = 4

    static let providers = ["apns", "fcm", "webPush"]
    static let columns =
        "app_id, bucket, provider, shard, sent, failed_invalid_token, failed_throttled, failed_service, failed_auth, failed_other, tokens_removed"

    /// The rows written: minutes, then hours.
    func run() async throws -> (minutes: Int, hours: Int) {
        let minute: Int64 = 60_000
        let hour: Int64 = 3_600_000
        let thisMinute = now - now % minute
        let minutesFrom = thisMinute - Int64(min(days * 24, minuteHours)) * hour
        var minuteRows: [(Int64, String, Int)] = []
        var bucket = minutesFrom
        while bucket <= thisMinute {
            for provider in Self.providers { for shard in 0..<shards { minuteRows.append((bucket, provider, shard)) } }
            bucket += minute
        }
        var hourRows: [(Int64, String, Int)] = []
        bucket = (minutesFrom - minutesFrom % hour) - Int64(days * 24) * hour
        while bucket < minutesFrom - minutesFrom % hour {
            for provider in Self.providers { hourRows.append((bucket, provider, 0)) }
            bucket += hour
        }
        try await write("delivery_minutes", minuteRows, scale: 1)
        try await write("delivery_hours", hourRows, scale: 60 * Int64(shards))
        return (minuteRows.count, hourRows.count)
    }

    private func write(_ table: String, _ rows: [(bucket: Int64, provider: String, shard: Int)], scale: Int64) async throws {
        for transaction in stride(from: 0, to: rows.count, by: 10_000) {
            let slice = rows[transaction..<min(rows.count, transaction + 10_000)]
            try await backend.write { db in
                for start in stride(from: slice.startIndex, to: slice.endIndex, by: 2_000) {
                    let values = slice[start..<min(slice.endIndex, start + 2_000)].map { row -> SQLQueryString in
                        let n = row.bucket / 60_000 + Int64(row.shard)
                        let sent = (400 + n % 600) * scale
                        return """
                            (\(bind: app), \(bind: row.bucket), \(bind: row.provider), \(bind: row.shard), \(bind: sent), \
                            \(bind: (n % 7) * scale), \(bind: (n % 3 == 0 ? 2 : 0) * scale), \(bind: (n % 11 == 0 ? 5 : 0) * scale), \
                            \(bind: (n % 97 == 0 ? 1 : 0) * scale), \(bind: (n % 5) * scale), \(bind: (n % 7) * scale))
                            """
                    }
                    try await db.raw(
                        "INSERT INTO \(unsafeRaw: table) (\(unsafeRaw: Self.columns)) VALUES \(values.joined(separator: ", "))"
                    )
                    .run()
                }
            }
        }
    }
}
