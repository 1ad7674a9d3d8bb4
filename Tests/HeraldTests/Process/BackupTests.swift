import Foundation
import HeraldCore
import HeraldStore
import HeraldTestSupport
import Logging
import SQLKit
import Testing

/// `herald backup` while a server writes, and `herald restore`'s checks, through the built binary.
@Suite(.serialized) struct BackupTests {
    /// Registrations keep coming while the backup copies the file a few pages a step; the copy holds
    /// every registration answered before it started, and restored under a new server it serves them.
    @Test func aBackupWhileRegistrationsComeInHoldsEveryEarlierOneAndRestores() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let database = "sqlite://" + scratch.path("herald.sqlite")
        let backupFile = scratch.path("backup.sqlite")
        let configFile = try scratch.write("herald.json", DurabilityTests.config)
        let server = try HeraldProcess(["serve", "--config", configFile, "--port", "0", "--database", database])
        let base = try await server.waitUntilListening()
        let endpoint = base.appendingPathComponent("shop/k-client/messaging/registrations")

        let acknowledged = Acknowledged()
        let stop = Locked(false)
        let writers = Task {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for client in 0..<8 {
                    group.addTask {
                        var n = 0
                        while !stop.withLock({ $0 }) {
                            n += 1
                            let id = "c\(client)-\(n)"
                            let body =
                                "{\"deviceToken\": \"abcd\(String(format: "%08x", n))\", \"deviceId\": \"\(id)\", \"channels\": [\"news\"]}"
                            let answer = try await HTTP.send("POST", endpoint, json: body)
                            if (200..<300).contains(answer.status) { acknowledged.ids.withLock { $0.append(id) } }
                        }
                    }
                }
                try await group.waitForAll()
            }
        }
        func count() -> Int { acknowledged.ids.withLock { $0.count } }
        while count() < 500 { try await Task.sleep(for: .milliseconds(10)) }
        let before = acknowledged.ids.withLock { $0 }
        // 4 pages a step: hundreds of steps, with registrations committed between them.
        let backup = try await HeraldProcess.run(
            ["backup", backupFile, "--database", database, "--pages-per-step", "4"], timeout: .seconds(120))
        let atEnd = acknowledged.ids.withLock { $0 }
        while count() < atEnd.count + 100 { try await Task.sleep(for: .milliseconds(10)) }
        stop.withLock { $0 = true }
        try await writers.value
        let late = Set(acknowledged.ids.withLock { $0 }).subtracting(atEnd)

        #expect(backup.code == 0, "\(backup.stderr)")
        #expect(atEnd.count > before.count, "registrations were answered while the backup ran")
        #expect(backup.stdout.contains("copied "), "\(backup.stdout)")
        #expect(!backup.stdout.contains("\r"), "no progress rewritten in place when stdout is not a terminal")
        #expect(backup.stdout.contains("wrote \(backupFile): "), "\(backup.stdout)")
        #expect(backup.stdout.contains("schema \(SchemaVersion.current), in "), "\(backup.stdout)")
        #expect(try SQLiteRestore.inspect(backupFile).latest == SchemaVersion.current, "the copy passes the integrity check")
        #expect(try Self.leftovers(scratch).isEmpty, "no partial file is left")

        server.process.terminate()
        #expect(try await server.waitForExit() == 0)
        let restore = try await HeraldProcess.run(["restore", backupFile, "--database", database])
        #expect(restore.code == 0, "\(restore.stderr)")
        #expect(restore.stdout.hasPrefix("restored \(backupFile) ("), "\(restore.stdout)")
        #expect(restore.stdout.contains("schema \(SchemaVersion.current)) to \(database) in "), "\(restore.stdout)")

        let restarted = try HeraldProcess(["serve", "--config", configFile, "--port", "0", "--database", database])
        let again = try await restarted.waitUntilListening()
        var missing: [String] = []
        for id in before {
            let answer = try await HTTP.send("GET", again.appendingPathComponent("shop/k-client/messaging/registrations/\(id)"))
            if answer.status != 200 { missing.append(id) }
        }
        #expect(missing.isEmpty, "answered before the backup started, absent from it: \(missing.prefix(10))")
        // Registered after the backup ended: the restored file is the backup, not the file it replaced.
        let lateId = try #require(late.first)
        #expect(try await HTTP.send("GET", again.appendingPathComponent("shop/k-client/messaging/registrations/\(lateId)")).status == 404)
        restarted.process.terminate()
        _ = try await restarted.waitForExit()
    }

    @Test func restoreRefusesTheDatabaseOfARunningServer() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let database = "sqlite://" + scratch.path("herald.sqlite")
        let backupFile = scratch.path("backup.sqlite")
        let configFile = try scratch.write("herald.json", DurabilityTests.config)
        let server = try HeraldProcess(["serve", "--config", configFile, "--port", "0", "--database", database])
        let base = try await server.waitUntilListening()
        let device = base.appendingPathComponent("shop/k-client/messaging/registrations")
        let body = #"{"deviceToken": "abcd1234", "deviceId": "kept", "channels": ["news"]}"#
        #expect(try await HTTP.send("POST", device, json: body).status == 200)
        #expect(try await HeraldProcess.run(["backup", backupFile, "--database", database]).code == 0)

        let refused = try await HeraldProcess.run(["restore", backupFile, "--database", database])
        #expect(refused.code == 1)
        #expect(CommandLineTests.problemLines(refused.stderr).count == 1, "\(refused.stderr)")
        #expect(refused.stderr.contains("is in use by another process"), "\(refused.stderr)")
        #expect(try Self.leftovers(scratch).isEmpty)
        #expect(try await HTTP.send("GET", device.appendingPathComponent("kept")).status == 200, "the server is undisturbed")

        server.process.terminate()
        _ = try await server.waitForExit()
        let restored = try await HeraldProcess.run(["restore", backupFile, "--database", database])
        #expect(restored.code == 0, "\(restored.stderr)")
    }

    /// Random bytes, a truncated backup and one from a newer Herald are refused, and the database is untouched.
    @Test func restoreRefusesADamagedBackupOrANewerSchema() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let target = scratch.path("herald.sqlite")
        let database = "sqlite://" + target
        #expect(try await HeraldProcess.run(["migrate", "--database", database]).code == 0)
        let good = scratch.path("good.sqlite")
        #expect(try await HeraldProcess.run(["backup", good, "--database", database]).code == 0)
        let original = try Data(contentsOf: URL(fileURLWithPath: target))

        let random = scratch.path("random.sqlite")
        try Data((0..<65536).map { _ in UInt8.random(in: 0...255) }).write(to: URL(fileURLWithPath: random))
        let truncated = scratch.path("truncated.sqlite")
        let whole = try Data(contentsOf: URL(fileURLWithPath: good))
        try whole.prefix(whole.count / 2).write(to: URL(fileURLWithPath: truncated))
        let newer = scratch.path("newer.sqlite")
        try whole.write(to: URL(fileURLWithPath: newer))
        try await Self.execute("INSERT INTO herald_migrations (name, applied_at) VALUES ('9999_from_a_newer_herald', 0)", on: newer)

        let cases = [
            (random, "file is not a database"), (truncated, "backup \(truncated)"),
            (newer, "has a schema newer than this Herald (migration 9999_from_a_newer_herald"),
            (scratch.path("absent.sqlite"), "does not exist"),
        ]
        for (file, expected) in cases {
            let result = try await HeraldProcess.run(["restore", file, "--database", database])
            #expect(result.code == 1, "\(file)")
            #expect(CommandLineTests.problemLines(result.stderr).count == 1, "\(result.stderr)")
            #expect(result.stderr.contains(expected), "\(file): \(result.stderr)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: target)) == original, "\(file) changed the database")
            #expect(try Self.leftovers(scratch).isEmpty)
        }

        // An older schema is restored, and the output says the next migrate upgrades it.
        let older = scratch.path("older.sqlite")
        try whole.write(to: URL(fileURLWithPath: older))
        try await Self.execute("DELETE FROM herald_migrations WHERE name = '\(SchemaVersion.current)'", on: older)
        let restored = try await HeraldProcess.run(["restore", older, "--database", database])
        #expect(restored.code == 0, "\(restored.stderr)")
        #expect(restored.stdout.contains("applies the 1 missing migration"), "\(restored.stdout)")
    }

    /// `--sync-every` and `--pace` change how the copy is written, not what it holds; the output times
    /// each phase; values out of range are refused before anything is written.
    @Test func syncEveryAndPaceChangeHowTheCopyIsWrittenNotWhatItHolds() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let database = "sqlite://" + scratch.path("herald.sqlite")
        #expect(try await HeraldProcess.run(["migrate", "--database", database]).code == 0)
        let copy = scratch.path("copy.sqlite")
        for options in [["--sync-every", "0"], ["--sync-every", "1", "--pace", "0"], ["--pace", "20"]] {
            let result = try await HeraldProcess.run(["backup", copy, "--database", database] + options)
            #expect(result.code == 0, "\(options): \(result.stderr)")
            #expect(result.stdout.contains(" s (copy "), "\(result.stdout)")
            #expect(result.stdout.contains(" s, check "), "\(result.stdout)")
            #expect(try SQLiteRestore.inspect(copy).latest == SchemaVersion.current)
        }
        try FileManager.default.removeItem(atPath: copy)
        for (options, expected) in [(["--sync-every", "-1"], "--sync-every"), (["--pace", "5000"], "--pace")] {
            let result = try await HeraldProcess.run(["backup", copy, "--database", database] + options)
            #expect(result.code != 0, "\(options)")
            #expect(result.stderr.contains(expected), "\(options): \(result.stderr)")
            #expect(!FileManager.default.fileExists(atPath: copy), "\(options) wrote a copy")
        }
    }

    @Test func backupAndRestoreRefusePostgreSQLAndAMissingDatabase() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let postgres = "postgres://herald@127.0.0.1:1/herald?sslmode=disable"
        for command in ["backup", "restore"] {
            let result = try await HeraldProcess.run([command, scratch.path("copy.sqlite"), "--database", postgres])
            #expect(result.code == 1)
            #expect(CommandLineTests.problemLines(result.stderr).count == 1, "\(result.stderr)")
            #expect(result.stderr.contains("is PostgreSQL: use pg_dump"), "\(result.stderr)")
        }
        let missing = try await HeraldProcess.run(
            ["backup", scratch.path("copy.sqlite"), "--database", "sqlite://" + scratch.path("typo.sqlite")])
        #expect(missing.code == 1)
        #expect(missing.stderr.contains("does not exist"), "\(missing.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.url.path).isEmpty, "nothing was created")
    }

    /// Files a backup or restore left behind: partial copies and their journals.
    static func leftovers(_ scratch: Scratch) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: scratch.url.path).filter { $0.contains(".partial-") }
    }

    /// One statement on a SQLite file through Herald's own backend (closed after, so no WAL is left).
    static func execute(_ sql: String, on path: String) async throws {
        let backend = try await SQLiteBackend.open(.sqliteFile(path: path), logger: Logger(label: "herald.tests"))
        try await backend.write { db in try await db.raw(SQLQueryString(sql)).run() }
        try await backend.close()
    }
}
