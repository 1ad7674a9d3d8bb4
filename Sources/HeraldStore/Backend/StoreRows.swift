import PostgresNIO
import SQLKit
import SQLiteKit

/// One row of a hot query, its columns read by position and type straight from the driver.
///
/// SQLKit's `SQLRow.decode(column:as:)` finds each column by name and decodes it through `Decodable`,
/// with dynamic casts and generic metadata lookups: about 2,400 instructions a value under callgrind,
/// 9,500 for each recipient of a fan-out (BENCHMARKS.md section 25). `SQLDatabase.storeRows` reads the
/// same query's rows from SQLiteNIO or PostgresNIO instead, on the sessions that keep their connection
/// (`SQLiteSession`, `PostgresSession`), and through SQLKit elsewhere (an in-memory SQLite database, whose
/// reads share the writer), so the caller's code is the same on every backend.
struct StoreRow: Sendable {
    fileprivate enum Values: Sendable {
        case sqlite([SQLiteColumn])
        case postgres(PostgresRandomAccessRow)
        /// SQLKit's row and the query's column names, in order.
        case sql(any SQLRow, [String])
    }

    fileprivate let values: Values

    /// The integer in column `index` (from 0, in the query's order), which must not be NULL.
    func int64(_ index: Int) throws -> Int64 {
        guard let value = try optionalInt64(index) else { throw StoreRowError(column: name(index), expected: "an integer, not NULL") }
        return value
    }

    /// The integer in column `index`, or nil for NULL.
    func optionalInt64(_ index: Int) throws -> Int64? {
        switch values {
        case .sqlite(let columns):
            switch columns[index].data {
            case .integer(let value): return Int64(value)
            case .null: return nil
            default: throw StoreRowError(column: columns[index].name, expected: "an integer")
            }
        case .postgres(let row): return try row[index].decode(Int64?.self)
        case .sql(let row, let names): return try row.decode(column: names[index], as: Int64?.self)
        }
    }

    /// The text in column `index`, or nil for NULL.
    func text(_ index: Int) throws -> String? {
        switch values {
        case .sqlite(let columns):
            switch columns[index].data {
            case .text(let value): return value
            case .null: return nil
            default: throw StoreRowError(column: columns[index].name, expected: "text")
            }
        case .postgres(let row): return try row[index].decode(String?.self)
        case .sql(let row, let names): return try row.decode(column: names[index], as: String?.self)
        }
    }

    /// The text in column `index`, which must not be NULL.
    func requiredText(_ index: Int) throws -> String {
        guard let value = try text(index) else {
            throw StoreRowError(column: name(index), expected: "text, not NULL")
        }
        return value
    }

    private func name(_ index: Int) -> String {
        switch values {
        case .sqlite(let columns): columns[index].name
        case .postgres(let row): row[index].columnName
        case .sql(_, let names): names[index]
        }
    }
}

/// A column whose value is not of the type the store reads it as (a schema out of step with the code).
struct StoreRowError: Error, CustomStringConvertible {
    let column: String
    let expected: String
    var description: String { "column \(column) is not \(expected)" }
}

extension SQLDatabase {
    /// The rows of `query`, which selects `columns` in this order, for reading by position (`StoreRow`).
    func storeRows(_ query: SQLQueryString, columns: [String]) async throws -> [StoreRow] {
        if let session = self as? SQLiteSession {
            let (sql, binds) = serialized(query)
            let encoder = SQLiteDataEncoder()
            let data = try binds.map { try encoder.encode($0) }
            return try await session.connection.query(sql, data).map { StoreRow(values: .sqlite($0.columns)) }
        }
        if let session = self as? PostgresSession {
            let (sql, binds) = serialized(query)
            if let bindings = try Self.postgresBindings(binds) {
                var rows: [StoreRow] = []
                for try await row in try await session.connection.query(PostgresQuery(unsafeSQL: sql, binds: bindings), logger: logger) {
                    rows.append(StoreRow(values: .postgres(row.makeRandomAccess())))
                }
                return rows
            }
        }
        return try await raw(query).all().map { StoreRow(values: .sql($0, columns)) }
    }

    private func serialized(_ query: SQLQueryString) -> (String, [any Encodable & Sendable]) {
        var serializer = SQLSerializer(database: self)
        query.serialize(to: &serializer)
        return (serializer.sql, serializer.binds)
    }

    /// The binds as PostgresNIO takes them, as PostgresKit would send them; nil when one is of a type
    /// only PostgresKit's `Encodable` path can send (then the query goes through SQLKit).
    private static func postgresBindings(_ binds: [any Encodable & Sendable]) throws -> PostgresBindings? {
        var bindings = PostgresBindings(capacity: binds.count)
        for bind in binds {
            // An Optional (nil or not) is not PostgresEncodable itself: it takes the SQLKit path too.
            guard let value = bind as? any PostgresThrowingDynamicTypeEncodable else { return nil }
            try bindings.append(value, context: .default)
        }
        return bindings
    }
}
