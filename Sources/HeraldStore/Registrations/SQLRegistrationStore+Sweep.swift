import HeraldCore
import SQLKit

extension SQLRegistrationStore {
    /// Bind parameters per statement stay well under SQLite's (32,766) and PostgreSQL's (65,535) limits.
    static let maxBindsPerStatement = 5_000

    public func sweepExpired(now: Timestamp, limit: Int) async throws -> Int {
        try await backend.write { db in
            let rows = try await db.raw("""
                DELETE FROM registrations WHERE id IN (
                    SELECT id FROM registrations
                    WHERE expires_at IS NOT NULL AND expires_at <= \(bind: now.milliseconds)
                    ORDER BY expires_at
                    LIMIT \(bind: limit))
                RETURNING device_id
                """).all()
            var touched = Set<Int64>()
            for row in rows { touched.insert(try row.decode(column: "device_id", as: Int64.self)) }
            let devices = Array(touched)
            for start in stride(from: 0, to: devices.count, by: Self.maxBindsPerStatement) {
                let chunk = devices[start..<min(start + Self.maxBindsPerStatement, devices.count)]
                try await db.raw("""
                    DELETE FROM devices WHERE id IN (\(binds: Array(chunk)))
                      AND NOT EXISTS (SELECT 1 FROM registrations r WHERE r.device_id = devices.id)
                    """).run()
            }
            return rows.count
        }
    }
}
