import HeraldCore
import SQLKit

/// Migration 0009's backfill: the sortable key of every app version stored before the column existed.
enum AppVersionKeys {
    /// Rows per page; pages by id, so the work is linear in the devices that have a version.
    static let pageSize = 1000

    @Sendable static func backfill(_ db: any SQLDatabase) async throws {
        var after: Int64 = 0
        while true {
            let rows = try await db.raw(
                """
                SELECT id, app_version FROM devices
                WHERE id > \(bind: after) AND app_version IS NOT NULL AND app_version_key IS NULL
                ORDER BY id LIMIT \(bind: pageSize)
                """
            ).all()
            guard !rows.isEmpty else { return }
            for row in rows {
                let id = try row.decode(column: "id", as: Int64.self)
                after = id
                let version = try row.decode(column: "app_version", as: String.self)
                // A version with no leading number (say "beta") has no key: no version segment matches it.
                guard let key = AppVersion(version)?.key else { continue }
                try await db.raw("UPDATE devices SET app_version_key = \(bind: key) WHERE id = \(bind: id)").run()
            }
        }
    }
}
