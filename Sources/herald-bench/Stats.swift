import ArgumentParser
import Foundation
import HeraldCore
import HeraldStore
import SQLKit

/// `herald-bench stats`: what a database holds, to check a run wrote (or swept) what it claims.
struct Stats: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Print row counts and the file size of a database.")

    @OptionGroup var database: DatabaseOption

    func run() async throws {
        let counts = try await withBackend(database) { try await TableCounts.read($0) }
        print(counts.summary)
    }
}

/// Row counts of the tables a benchmark touches.
struct TableCounts: Sendable {
    var devices: Int
    var registrations: Int
    /// Registrations whose expiration is at or before now: what a sweep would remove.
    var expired: Int
    var fileBytes: Int

    static func read(_ backend: any SQLBackend) async throws -> TableCounts {
        let now = SystemClock().now.milliseconds
        let (devices, registrations, expired) = try await backend.read { db in
            func count(_ sql: SQLQueryString) async throws -> Int {
                try await db.raw(sql).first()?.decode(column: "n", as: Int.self) ?? 0
            }
            return (
                try await count("SELECT COUNT(*) AS n FROM devices"),
                try await count("SELECT COUNT(*) AS n FROM registrations"),
                try await count("SELECT COUNT(*) AS n FROM registrations WHERE expires_at IS NOT NULL AND expires_at <= \(bind: now)")
            )
        }
        let pages = try await backend.read { db in
            let row = try await db.raw(
                db.dialect.name == "postgresql"
                    ? "SELECT pg_database_size(current_database()) AS n"
                    : "SELECT page_count * page_size AS n FROM pragma_page_count(), pragma_page_size()"
            ).first()
            return try row?.decode(column: "n", as: Int.self) ?? 0
        }
        return TableCounts(devices: devices, registrations: registrations, expired: expired, fileBytes: pages)
    }

    var summary: String {
        "database: \(devices) devices, \(registrations) registrations (\(expired) expired), \(fileBytes / 1_048_576) MiB"
    }
}
