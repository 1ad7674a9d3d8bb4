import ArgumentParser
import HeraldCore
import HeraldStore
import SQLKit

/// `herald-bench sweep-by-id`: an experiment, not Herald's code path. It removes the same rows as
/// `Sweeper` (expired registrations, then the devices left with none, `--batch-size` per transaction)
/// but in primary-key order: it first lists every expired id through the expiry index, sorts them,
/// then deletes neighbouring rows together. Herald's sweeper deletes in `expires_at` order, which
/// scatters each batch over the whole table when expirations are unrelated to registration order.
struct SweepByIdExperiment: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sweep-by-id",
        abstract: "Experiment: one sweep that deletes expired registrations in primary-key order.")

    @OptionGroup var database: DatabaseOption

    @Option(help: "Registrations deleted per transaction.")
    var batchSize = 1_000

    func run() async throws {
        let batchSize = self.batchSize
        let clock = ContinuousClock()
        try await withBackend(database) { backend in
            print("before: \(try await TableCounts.read(backend).summary)")
            let start = clock.now
            let now = SystemClock().now.milliseconds
            let ids = try await backend.read { db in
                try await db.raw("""
                    SELECT id FROM registrations WHERE expires_at IS NOT NULL AND expires_at <= \(bind: now)
                    """).all().map { try $0.decode(column: "id", as: Int64.self) }
            }.sorted()
            let listed = clock.now - start
            var removed = 0
            for first in stride(from: 0, to: ids.count, by: batchSize) {
                let batch = Array(ids[first..<min(first + batchSize, ids.count)])
                removed += try await backend.write { db in try await Self.delete(db, batch, now: now) }
            }
            let elapsed = clock.now - start
            print("sweep-by-id batch=\(batchSize) removed=\(removed) ms=\(format(elapsed.seconds * 1_000, 3)) "
                  + "(listing ids: \(format(listed.seconds * 1_000, 1)) ms)")
            print("after: \(try await TableCounts.read(backend).summary)")
        }
    }

    /// Deletes the listed registrations that are still expired (a refresh may have renewed one since)
    /// and the devices they leave without registrations.
    static func delete(_ db: any SQLDatabase, _ ids: [Int64], now: Int64) async throws -> Int {
        let rows = try await db.raw("""
            DELETE FROM registrations WHERE id IN (\(binds: ids)) AND expires_at <= \(bind: now)
            RETURNING device_id
            """).all()
        let devices = Array(Set(try rows.map { try $0.decode(column: "device_id", as: Int64.self) })).sorted()
        for first in stride(from: 0, to: devices.count, by: 5_000) {
            let chunk = Array(devices[first..<min(first + 5_000, devices.count)])
            try await db.raw("""
                DELETE FROM devices WHERE id IN (\(binds: chunk))
                  AND NOT EXISTS (SELECT 1 FROM registrations r WHERE r.device_id = devices.id)
                """).run()
        }
        return rows.count
    }
}
