import ArgumentParser
import HeraldCore
import HeraldStore
import SQLKit

/// `herald-bench batched-register`: an experiment, not Herald's code path. It writes the same rows as
/// a register call (same upserts, same RETURNING), `--batch` registrations at a time in three set-based
/// statements per transaction, one batch after another with no concurrency and no HTTP.
/// It priced set-based group commit before the store adopted it (`RegistrationBatch`), and it still
/// shows how far the store is from the bare SQL cost. Unlike the store, it assumes no device repeats
/// within a batch.
struct BatchedRegister: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "batched-register",
        abstract: "Experiment: registrations in set-based statements, one transaction per batch.")

    @OptionGroup var database: DatabaseOption

    @Option(help: "Registrations per transaction (a group commit's batch).")
    var batch = 64

    @Option(help: "Registrations to make in all.")
    var count = 20_000

    func run() async throws {
        let requests = try (0..<count).map(StoreRegister.request)
        let batch = self.batch
        let clock = ContinuousClock()
        let elapsed = try await withBackend(database) { backend in
            let start = clock.now
            for first in stride(from: 0, to: requests.count, by: batch) {
                let slice = Array(requests[first..<min(first + batch, requests.count)])
                try await backend.write { db in try await Self.register(db, slice, now: SystemClock().now) }
            }
            return clock.now - start
        }
        print("batched register: batch=\(batch) registrations=\(count) seconds=\(format(elapsed.seconds, 2)) "
              + "rps=\(Int(Double(count) / elapsed.seconds))")
    }

    static func register(_ db: any SQLDatabase, _ requests: [RegistrationRequest], now: Timestamp) async throws {
        let ms = now.milliseconds
        let devices = requests.map { r -> SQLQueryString in
            """
            (\(bind: "bench"), \(bind: r.deviceId.rawValue), \(bind: Populator.newId()), \(bind: r.deviceToken.rawValue), \
            \(bind: r.os.rawValue), \(bind: r.osVersion), \(bind: ms), \(bind: ms), \(bind: true))
            """
        }
        let deviceRows = try await db.raw("""
            INSERT INTO devices (app_id, device_id, registration_id, device_token, os, os_version, created_at, last_seen_at, is_active)
            VALUES \(devices.joined(separator: ", "))
            ON CONFLICT (app_id, device_id) DO UPDATE SET
                device_token = excluded.device_token, os = excluded.os, os_version = excluded.os_version,
                last_seen_at = excluded.last_seen_at,
                is_active = CASE WHEN devices.device_token = excluded.device_token THEN devices.is_active ELSE TRUE END
            RETURNING id, device_id, registration_id
            """).all()
        var deviceIds: [String: Int64] = [:]
        for row in deviceRows { deviceIds[try row.decode(column: "device_id", as: String.self)] = try row.decode(column: "id", as: Int64.self) }

        let names = Array(Set(requests.flatMap { $0.channels.map(\.rawValue) }))
        let channelValues = names.map { "(\(bind: "bench"), \(bind: $0), \(bind: ms))" as SQLQueryString }
        try await db.raw("""
            INSERT INTO channels (app_id, name, created_at) VALUES \(channelValues.joined(separator: ", "))
            ON CONFLICT (app_id, name) DO NOTHING
            """).run()
        let channelRows = try await db.raw("SELECT id, name FROM channels WHERE app_id = \(bind: "bench") AND name IN (\(binds: names))").all()
        var channelIds: [String: Int64] = [:]
        for row in channelRows { channelIds[try row.decode(column: "name", as: String.self)] = try row.decode(column: "id", as: Int64.self) }

        let registrations = requests.flatMap { r in
            r.channels.map { channel -> SQLQueryString in
                """
                (\(bind: channelIds[channel.rawValue]!), \(bind: deviceIds[r.deviceId.rawValue]!), \(bind: Populator.newId()), \
                \(bind: r.expiration?.timestamp.milliseconds), \(bind: ms), \(bind: ms))
                """
            }
        }
        _ = try await db.raw("""
            INSERT INTO registrations (channel_id, device_id, registration_id, expires_at, created_at, updated_at)
            VALUES \(registrations.joined(separator: ", "))
            ON CONFLICT (channel_id, device_id) DO UPDATE SET expires_at = excluded.expires_at, updated_at = excluded.updated_at
            RETURNING channel_id, device_id, registration_id
            """).all()
    }
}
