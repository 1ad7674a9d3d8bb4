import HeraldCore
import SQLKit

/// Migration 0009's backfill: the sortable key of every app version stored before the column existed.
enum AppVersionKeys {
    /// Versions per page of the distinct versions stored.
    static let pageSize = 1000

    /// One UPDATE per distinct version (an app has a handful live at a time, however many devices),
    /// paged through the distinct versions in order. Progress counts devices: each page's versions with
    /// how many devices have each (a version without a key, say "beta", is done once passed).
    @Sendable static func backfill(_ db: any SQLDatabase, _ progress: BackfillProgress) async throws {
        let devices = try await db.raw(
            "SELECT COUNT(*) AS n FROM devices WHERE app_version IS NOT NULL AND app_version_key IS NULL"
        ).first()?.decode(column: "n", as: Int.self)
        progress.expect(devices ?? 0)
        var after: String?
        while true {
            let condition: SQLQueryString = after.map { "AND app_version > \(bind: $0)" } ?? ""
            let versions = try await db.raw(
                """
                SELECT app_version, COUNT(*) AS devices FROM devices
                WHERE app_version IS NOT NULL AND app_version_key IS NULL \(condition)
                GROUP BY app_version ORDER BY app_version LIMIT \(bind: pageSize)
                """
            ).all().map {
                (version: try $0.decode(column: "app_version", as: String.self), devices: try $0.decode(column: "devices", as: Int.self))
            }
            guard let last = versions.last else { return }
            after = last.version
            for (version, _) in versions {
                // A version with no leading number (say "beta") has no key: no version segment matches it.
                guard let key = AppVersion(version)?.key else { continue }
                try await db.raw(
                    """
                    UPDATE devices SET app_version_key = \(bind: key)
                    WHERE app_version = \(bind: version) AND app_version_key IS NULL
                    """
                ).run()
            }
            progress.advance(by: versions.reduce(0) { $0 + $1.devices })
        }
    }
}
