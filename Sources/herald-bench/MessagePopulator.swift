import Foundation
import HeraldStore
import SQLKit

/// `herald-bench populate --messages N`: N messages of the app, as a history of publishes looks: spread
/// over the past 29 days (inside `messages.retentionDays`), over the populated channels, 90% published,
/// 5% failed, 3% cancelled and 2% scheduled for later, with delivery counts; written in batches, one
/// transaction per 10,000.
struct MessagePopulator {
    let backend: any SQLBackend
    let app: String
    let messages: Int
    let channels: Int
    let now: Int64

    static let columns =
        "id, app_id, channel, policy, broadcast, status, error_message, due_at, occurrences, sent, failed, created_at, updated_at"
    static let binds = 13

    func run() async throws {
        let perStatement = 30_000 / Self.binds
        for transaction in Populator.chunks(of: 1...messages, size: 10_000) {
            let statements = Populator.chunks(of: transaction, size: perStatement).map { chunk -> SQLQueryString in
                let rows = chunk.map { n -> SQLQueryString in
                    let created = now - Int64(n) * (29 * 86_400_000 / Int64(max(messages, 1)))
                    let status: String
                    switch n % 100 {
                    case 0..<90: status = "published"
                    case 90..<95: status = "failed"
                    case 95..<98: status = "cancelled"
                    default: status = "scheduled"
                    }
                    let sent: Int64 = status == "published" ? Int64(n % 5000) : 0
                    return """
                        (\(bind: "message:\(UUID().uuidString.lowercased())"), \(bind: app), \(bind: PopulationPlan.channelName((n - 1) % channels)), \
                        \(bind: "PUSH"), \(bind: 15), \(bind: status), \(bind: status == "failed" ? "APNs refused the credentials" : nil as String?), \
                        \(bind: status == "scheduled" ? now + 86_400_000 : nil as Int64?), \(bind: status == "published" ? 1 : 0), \(bind: sent), \
                        \(bind: Int64(n % 7)), \(bind: created), \(bind: created))
                        """
                }
                return "INSERT INTO messages (\(unsafeRaw: Self.columns)) VALUES \(rows.joined(separator: ", "))"
            }
            try await backend.write { db in
                for statement in statements { try await db.raw(statement).run() }
            }
        }
    }
}
