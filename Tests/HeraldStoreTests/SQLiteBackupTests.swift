import Foundation
import HeraldTestSupport
import Logging
import SQLKit
import Testing

@testable import HeraldStore

/// `SQLiteBackup`'s copy written back to disk as it grows is the same database as one synced once at the
/// end, and replaces an earlier copy the same way.
@Suite struct SQLiteBackupTests {
    @Test(arguments: [0, 16 << 10])
    func theCopyHoldsEveryRowWhetherWrittenBackAsItGrowsOrNot(_ syncEvery: Int) async throws {
        let directory = try Scratch()
        defer { directory.remove() }
        let source = directory.path("herald.sqlite")
        // About 4 MB: more than the copy's connection keeps in its page cache (2 MB), so its pages reach
        // the file while the copy goes on, not only at its commit.
        let devices = 20000
        let logger = Logger(label: "herald.tests")
        try await StoreFactory.withBackend(.sqliteFile(path: source), logger: logger) { backend in
            try await Migrator(backend: backend).migrate(logger: logger)
            try await backend.unboundedWrite { db in
                try await db.raw(
                    """
                    WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(unsafeRaw: "\(devices)"))
                    INSERT INTO devices (app_id, device_id, registration_id, device_token, os, created_at, last_seen_at)
                    SELECT 'app', 'device-' || i, 'r' || i, hex(randomblob(32)), 'IOS', 0, 0 FROM n
                    """
                ).run()
            }
        }
        let copy = directory.path("copy.sqlite")
        var backup = SQLiteBackup(source: source, destination: copy)
        backup.pagesPerStep = 8
        backup.pause = .zero
        backup.syncEvery = syncEvery
        // The check's lower priority would stay with the test runner's thread.
        backup.checkNice = 0
        // Twice: the second copy replaces the first (freed a slice at a time when written back as it grows).
        _ = try backup.run { _ in }
        let outcome = try backup.run { _ in }

        if syncEvery == 0 {
            #expect(outcome.writebacks == 0)
        } else {
            // Megabytes in 16 KiB chunks: written back many times before the end, not once.
            #expect(outcome.writebacks > 10, "\(outcome.writebacks) writebacks of \(outcome.bytes) bytes")
        }
        #expect(outcome.schema.latest == SchemaVersion.current)
        let handle = try SQLiteHandle(path: copy, mode: .immutable)
        defer { handle.close() }
        #expect(try handle.strings("PRAGMA integrity_check") == ["ok"])
        #expect(try handle.strings("SELECT count(*) FROM devices") == ["\(devices)"])
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.url.path).filter { $0.contains(".partial-") }
        #expect(leftovers.isEmpty)
    }
}
