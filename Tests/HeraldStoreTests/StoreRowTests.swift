import SQLKit
import Testing

@testable import HeraldStore

/// `StoreRow` reads a query's columns by position the same way on every backend: straight from SQLiteNIO on
/// a SQLite file's readers, from PostgresNIO on PostgreSQL, and through SQLKit on an in-memory SQLite
/// database (whose reads share the writer).
@Suite struct StoreRowTests {
    @Test(arguments: StoreBackendKind.allCases)
    func columnsReadByPositionWithTheirBinds(_ kind: StoreBackendKind) async throws {
        try await kind.withStore { _, backend in
            let rows = try await backend.read { db in
                try await db.storeRows(
                    """
                    SELECT CAST(\(bind: Int64(1) << 40) AS BIGINT) AS big, CAST(\(bind: "tëxt") AS TEXT) AS word,
                           CAST(NULL AS TEXT) AS no_text, CAST(NULL AS BIGINT) AS no_number,
                           CAST(\(bind: 7) AS BIGINT) AS small, CASE WHEN \(bind: true) THEN 'yes' ELSE 'no' END AS flag
                    """, columns: ["big", "word", "no_text", "no_number", "small", "flag"])
            }
            #expect(rows.count == 1)
            let row = try #require(rows.first)
            #expect(try row.int64(0) == 1 << 40)
            #expect(try row.text(1) == "tëxt")
            #expect(try row.requiredText(1) == "tëxt")
            #expect(try row.text(2) == nil)
            #expect(try row.optionalInt64(3) == nil)
            #expect(try row.optionalInt64(4) == 7)
            #expect(try row.requiredText(5) == "yes")
            // A NULL where a value must be, and a value of the wrong type, are errors, not crashes.
            #expect(throws: (any Error).self) { try row.requiredText(2) }
            #expect(throws: (any Error).self) { try row.int64(1) }
        }
    }

    @Test(arguments: StoreBackendKind.allCases)
    func manyRowsInOrder(_ kind: StoreBackendKind) async throws {
        try await kind.withStore { _, backend in
            let rows = try await backend.read { db in
                try await db.storeRows(
                    """
                    WITH RECURSIVE n(i) AS (SELECT CAST(1 AS BIGINT) UNION ALL SELECT i + 1 FROM n WHERE i < \(bind: 250))
                    SELECT i, CAST(i * 2 AS BIGINT) AS twice FROM n ORDER BY i
                    """, columns: ["i", "twice"])
            }
            #expect(try rows.map { try $0.int64(0) } == Array(1...250))
            #expect(try rows.map { try $0.int64(1) } == (1...250).map { $0 * 2 })
        }
    }
}
