import HeraldCore
import HeraldTestSupport
import Logging
import SQLKit
import Testing

@testable import HeraldStore

/// Migration 0009 adds devices.app_version_key and computes it for the versions devices already had.
@Suite struct MigrationBackfillTests {
    @Test(arguments: StoreBackendKind.allCases)
    func appVersionKeysAreBackfilled(_ kind: StoreBackendKind) async throws {
        let logger = Logger(label: "herald.tests")
        try await kind.withEmptyBackend { backend in
            let before = Array(Schema.migrations.prefix { $0.name < "0009" })
            try await Migrator(backend: backend, migrations: before).migrate(logger: logger)
            // Devices as a Herald before 0009 stored them; more than one backfill page of them.
            let versions: [String?] = ["2.3.1", "10.0", "beta", nil, "3"]
            let count = AppVersionKeys.pageSize + 7
            try await backend.write { db in
                for index in 0..<count {
                    let version = versions[index % versions.count]
                    try await db.raw(
                        """
                        INSERT INTO devices (app_id, device_id, registration_id, device_token, os, created_at, last_seen_at, app_version)
                        VALUES ('app', \(bind: "device-\(index)"), \(bind: "r\(index)"), 'aa', 'IOS', 0, 0, \(bind: version))
                        """
                    ).run()
                }
            }
            let applied = try await Migrator(backend: backend).migrate(logger: logger)
            #expect(applied.first == "0009_publish_segments")
            let rows = try await backend.read { db in
                try await db.raw("SELECT device_id, app_version, app_version_key FROM devices ORDER BY id").all()
            }
            #expect(rows.count == count)
            for row in rows {
                let version = try row.decode(column: "app_version", as: String?.self)
                let key = try row.decode(column: "app_version_key", as: String?.self)
                let device = try row.decode(column: "device_id", as: String.self)
                #expect(key == version.flatMap { AppVersion($0)?.key }, "device \(device)")
            }
            let keyed = rows.filter { (try? $0.decode(column: "app_version_key", as: String?.self)) != nil }
            #expect(keyed.count == count / versions.count * 3 + min(count % versions.count, 2), "2.3.1, 10.0 and 3 have keys")
        }
    }
}
