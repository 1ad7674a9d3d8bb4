import Foundation
import HeraldCore
import HeraldStore
import SQLKit

/// Writes a `PopulationPlan` into an empty, migrated database through the backend's own `write`,
/// so the rows land in the real schema with its indexes, pragmas and durable commits.
///
/// Rows go in as multi-row INSERTs of bind parameters, at most `bindsPerStatement` binds each
/// (SQLite refuses more than 32,766), and `devicesPerTransaction` devices with their registrations
/// per transaction, so the WAL stays small and checkpoints keep up.
struct Populator {
    let backend: any SQLBackend
    let plan: PopulationPlan
    /// Registry metadata on every device (`populate --metadata`), for the admin listing's benchmark.
    var metadata = false
    var bindsPerStatement = 25_000
    var devicesPerTransaction = 50_000

    /// Raised when the file already holds devices: primary keys are assigned from 1, so it must be fresh.
    struct NotEmpty: Error, CustomStringConvertible {
        let description = "the database already holds devices; populate needs a fresh file"
    }

    static let deviceColumns = "id, app_id, device_id, registration_id, device_token, os, created_at, last_seen_at"
    static let deviceBinds = 8
    static let registrationColumns = "id, channel_id, device_id, registration_id, expires_at, created_at, updated_at"
    static let registrationBinds = 7

    /// Inserts everything; `progress` is called after each transaction with the devices written so far.
    ///
    /// The next transaction's statements are built while the current one executes, so both cores work.
    func run(progress: (Int) -> Void = { _ in }) async throws {
        let existing = try await backend.read { db in
            try await db.raw("SELECT COUNT(*) AS n FROM devices").first()?.decode(column: "n", as: Int.self) ?? 0
        }
        guard existing == 0 else { throw NotEmpty() }
        try await execute([channelRows()])
        let transactions = Self.chunks(of: 1...plan.devices, size: devicesPerTransaction)
        var statements = statements(for: transactions[0])
        for (index, range) in transactions.enumerated() {
            let following = index + 1 < transactions.count ? transactions[index + 1] : nil
            async let next = following.map { self.statements(for: $0) } ?? []
            try await execute(statements)
            progress(range.upperBound)
            statements = await next
        }
        // PostgreSQL's identity columns do not see explicit ids: move them past the rows written, so a
        // device or registration Herald inserts later does not collide with one of these.
        try await backend.write { db in
            guard db.dialect.name == "postgresql" else { return }
            for table in ["devices", "channels", "registrations"] {
                try await db.raw(
                    SQLQueryString(
                        "SELECT setval(pg_get_serial_sequence('\(unsafeRaw: table)', 'id'), (SELECT COALESCE(MAX(id), 0) + 1 FROM \(ident: table)), false)"
                    )
                ).run()
            }
        }
    }

    /// Runs `statements` in one durable transaction.
    private func execute(_ statements: [SQLQueryString]) async throws {
        try await backend.write { db in
            for statement in statements { try await db.raw(statement).run() }
        }
    }

    private func channelRows() -> SQLQueryString {
        let rows = (1...plan.channelCount).map { id -> SQLQueryString in
            "(\(bind: id), \(bind: plan.app), \(bind: PopulationPlan.channelName(id - 1)), \(bind: plan.now))"
        }
        return "INSERT INTO channels (id, app_id, name, created_at) VALUES \(rows.joined(separator: ", "))"
    }

    /// The INSERTs for the devices in `range` and all their registrations.
    private func statements(for range: ClosedRange<Int>) -> [SQLQueryString] {
        let devicesPerStatement = bindsPerStatement / (metadata ? Self.metadataBinds : Self.deviceBinds)
        let devicesPerRegistrationStatement = max(1, bindsPerStatement / (Self.registrationBinds * plan.channelsPerDevice))
        var statements: [SQLQueryString] = []
        for chunk in Self.chunks(of: range, size: devicesPerStatement) where metadata {
            let rows = chunk.map { n -> SQLQueryString in
                let device = Self.metadata(n, now: plan.now, android: plan.isAndroid(n))
                return """
                    (\(bind: n), \(bind: plan.app), \(bind: plan.deviceId(n)), \(bind: Self.newId()), \
                    \(bind: plan.deviceToken(n)), \(bind: plan.os(n)), \(bind: plan.now), \(bind: device.lastSeen), \(bind: device.active), \
                    \(bind: "install-\(n)"), \(bind: "Phone \(n)"), \(bind: device.model), \(bind: device.version), \
                    \(bind: AppVersion(device.version)?.key), \(bind: device.locale))
                    """
            }
            statements.append(
                "INSERT INTO devices (\(unsafeRaw: Self.metadataColumns)) VALUES \(rows.joined(separator: ", "))")
        }
        for chunk in Self.chunks(of: range, size: devicesPerStatement) where !metadata {
            let rows = chunk.map { n -> SQLQueryString in
                """
                (\(bind: n), \(bind: plan.app), \(bind: plan.deviceId(n)), \(bind: Self.newId()), \
                \(bind: plan.deviceToken(n)), \(bind: plan.os(n)), \(bind: plan.now), \(bind: plan.now))
                """
            }
            statements.append("INSERT INTO devices (\(unsafeRaw: Self.deviceColumns)) VALUES \(rows.joined(separator: ", "))")
        }
        for chunk in Self.chunks(of: range, size: devicesPerRegistrationStatement) {
            var rows: [SQLQueryString] = []
            rows.reserveCapacity(chunk.count * plan.channelsPerDevice)
            for n in chunk {
                let expiresAt = plan.expiresAt(n)
                for (slot, channel) in plan.channels(of: n).enumerated() {
                    let id = (n - 1) * plan.channelsPerDevice + slot + 1
                    rows.append(
                        """
                        (\(bind: id), \(bind: channel), \(bind: n), \(bind: Self.newId()), \(bind: expiresAt), \
                        \(bind: plan.now), \(bind: plan.now))
                        """)
                }
            }
            statements.append("INSERT INTO registrations (\(unsafeRaw: Self.registrationColumns)) VALUES \(rows.joined(separator: ", "))")
        }
        return statements
    }

    static let metadataColumns =
        "id, app_id, device_id, registration_id, device_token, os, created_at, last_seen_at, is_active, install_id, device_name, device_model, app_version, app_version_key, locale"
    static let metadataBinds = 15

    /// Device `n`'s metadata: eight app versions, six locales, four models (of its platform), last seen
    /// within 30 days, every hundredth switched off, all spread evenly over the device numbers.
    static func metadata(_ n: Int, now: Int64, android: Bool = false) -> (
        version: String, locale: String, model: String, lastSeen: Int64, active: Bool
    ) {
        let versions = ["1.0", "1.5", "2.0", "2.2.1", "2.3", "2.10", "3.0", "3.1"]
        let locales = ["en-US", "de-DE", "de-CH", "fr-FR", "fr-CA", "ja-JP"]
        let models =
            android ? ["Pixel 8", "Pixel 7a", "SM-S918B", "SM-A546B"] : ["iPhone15,2", "iPhone14,7", "iPhone16,1", "iPad13,1"]
        return (
            versions[n % versions.count], locales[(n / 7) % locales.count], models[(n / 3) % models.count],
            now - Int64((n * 7919) % (30 * 86_400)) * 1000, n % 100 != 0
        )
    }

    static func chunks(of range: ClosedRange<Int>, size: Int) -> [ClosedRange<Int>] {
        stride(from: range.lowerBound, through: range.upperBound, by: size).map { start in
            start...min(range.upperBound, start + size - 1)
        }
    }

    /// Registration ids have the server's shape (lower-case UUIDs).
    static func newId() -> String { UUID().lowercasedText }
}
