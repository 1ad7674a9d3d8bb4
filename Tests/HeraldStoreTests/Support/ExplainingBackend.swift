import Foundation
import HeraldCore
import HeraldStore
import Logging
import NIOCore
import SQLKit

/// A backend that, before each statement the store runs, has the database explain it and keeps the plan,
/// then runs the statement as usual. So a test calls the store's own methods and learns how each of their
/// statements runs, with no copy of their SQL. PostgreSQL runs it under `EXPLAIN (ANALYZE, FORMAT JSON)`
/// (rows read, as run; inside a write rolled back to a savepoint, since EXPLAIN ANALYZE executes a
/// DELETE, so the statement itself then does exactly what it would have done); SQLite, which has no such
/// counts, under `EXPLAIN QUERY PLAN` (which tables and indexes it walks, and how).
final class ExplainingBackend: SQLBackend {
    let inner: any SQLBackend
    private let recorded = Locked<[ExplainedStatement]>([])

    init(_ inner: any SQLBackend) { self.inner = inner }

    var dialect: StoreDialect { inner.dialect }

    /// The statements run since the last call, with their plans, in order.
    func take() -> [ExplainedStatement] {
        recorded.withLock { statements in
            defer { statements = [] }
            return statements
        }
    }

    func read<T: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        try await inner.read { db in try await body(ExplainingDatabase(inner: db, inTransaction: false, backend: self)) }
    }

    func write<T: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        try await inner.write { db in try await body(ExplainingDatabase(inner: db, inTransaction: true, backend: self)) }
    }

    func unboundedWrite<T: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        try await inner.unboundedWrite { db in try await body(ExplainingDatabase(inner: db, inTransaction: true, backend: self)) }
    }

    func withLock<T: Sendable>(_ lock: StoreLock, wait: Bool, _ body: @escaping @Sendable () async throws -> T) async throws -> T? {
        try await inner.withLock(lock, wait: wait, body)
    }

    func close() async throws { try await inner.close() }

    func schemaChanged() async throws { try await inner.schemaChanged() }

    fileprivate func record(_ statement: ExplainedStatement) { recorded.withLock { $0.append(statement) } }
}

/// One statement the store ran and the database's plan of it.
struct ExplainedStatement: Sendable, CustomStringConvertible {
    let sql: String
    /// PostgreSQL's plan, as run.
    var plan: PlanNode? = nil
    /// SQLite's query plan, a line per step (`SEARCH d USING INTEGER PRIMARY KEY (rowid=?)`).
    var steps: [String] = []

    /// Rows the statement's scans produced or threw away, over all their loops: what it read (PostgreSQL).
    var rowsRead: Int { plan?.rowsRead ?? 0 }

    /// SQLite's steps that read a whole table or index (`SCAN x`, `SCAN x USING INDEX i`), but for the
    /// walk of a subquery's own rows (`SCAN r` of a `CO-ROUTINE r` or `MATERIALIZE r`).
    var fullScans: [String] {
        let subqueries = Set(
            steps.compactMap { step in
                ["CO-ROUTINE ", "MATERIALIZE "].first(where: step.hasPrefix).map { String(step.dropFirst($0.count)) }
            })
        return steps.filter { step in
            guard step.hasPrefix("SCAN ") else { return false }
            let name = step.dropFirst(5).split(separator: " ").first.map(String.init) ?? ""
            return !subqueries.contains(name) && name != "CONSTANT"
        }
    }

    var description: String {
        let text = sql.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        return plan == nil ? "\(steps.joined(separator: "; ")) for: \(text)" : "\(rowsRead) rows read by: \(text)"
    }
}

/// A node of `EXPLAIN (ANALYZE, FORMAT JSON)`'s plan.
struct PlanNode: Decodable, Sendable {
    let nodeType: String
    let actualRows: Double
    let actualLoops: Double
    let removedByFilter: Double?
    let removedByRecheck: Double?
    let plans: [PlanNode]?

    enum CodingKeys: String, CodingKey {
        case nodeType = "Node Type"
        case actualRows = "Actual Rows"
        case actualLoops = "Actual Loops"
        case removedByFilter = "Rows Removed by Filter"
        case removedByRecheck = "Rows Removed by Index Recheck"
        case plans = "Plans"
    }

    /// Rows read from tables and indexes: each scan's rows, those its filter discarded included, times its
    /// loops (PostgreSQL reports both per loop). Joins, sorts and limits only pass rows on.
    var rowsRead: Int {
        let own =
            nodeType.hasSuffix("Scan") && nodeType != "Subquery Scan" && nodeType != "CTE Scan"
            ? (actualRows + (removedByFilter ?? 0) + (removedByRecheck ?? 0)) * actualLoops : 0
        return Int(own.rounded()) + (plans ?? []).reduce(0) { $0 + $1.rowsRead }
    }
}

private struct ExplainRow: Decodable {
    let plan: PlanNode
    enum CodingKeys: String, CodingKey { case plan = "Plan" }
}

/// The database handed to the store's closures: explains, then runs.
private struct ExplainingDatabase: SQLDatabase {
    let inner: any SQLDatabase
    let inTransaction: Bool
    let backend: ExplainingBackend

    var logger: Logger { inner.logger }
    var eventLoop: any EventLoop { inner.eventLoop }
    var version: (any SQLDatabaseReportedVersion)? { inner.version }
    var dialect: any SQLDialect { inner.dialect }
    var queryLogLevel: Logger.Level? { inner.queryLogLevel }

    func execute(sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> Void) -> EventLoopFuture<Void> {
        let promise = eventLoop.makePromise(of: Void.self)
        promise.completeWithTask { try await self.execute(sql: query, onRow) }
        return promise.futureResult
    }

    func execute(sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> Void) async throws {
        let (sql, binds) = inner.serialize(query)
        // Every statement is explained but those that have no plan: a statement of another shape fails the
        // test (EXPLAIN refuses it) rather than going unmeasured.
        let keyword = sql.drop(while: { $0.isWhitespace || $0 == "(" }).prefix(9).uppercased()
        let plannable = !["BEGIN", "COMMIT", "ROLLBACK", "SAVEPOINT", "RELEASE", "SET ", "SHOW", "LOCK", "ANALYZE", "PRAGMA"].contains(
            where: keyword.hasPrefix)
        if plannable, backend.dialect == .sqlite {
            let rows = Locked<[any SQLRow]>([])
            try await inner.execute(sql: SQLRawWithBinds("EXPLAIN QUERY PLAN " + sql, binds)) { row in rows.withLock { $0.append(row) } }
            let steps = try rows.withLock { $0 }.map { try $0.decode(column: "detail", as: String.self) }
            backend.record(ExplainedStatement(sql: sql, steps: steps))
        } else if plannable {
            if inTransaction { try await inner.execute(sql: SQLRaw("SAVEPOINT explained"), { _ in }) }
            let rows = Locked<[any SQLRow]>([])
            try await inner.execute(sql: SQLRawWithBinds("EXPLAIN (ANALYZE, FORMAT JSON) " + sql, binds)) { row in
                rows.withLock { $0.append(row) }
            }
            if inTransaction { try await inner.execute(sql: SQLRaw("ROLLBACK TO SAVEPOINT explained"), { _ in }) }
            guard let first = rows.withLock({ $0.first }) else { throw ExplainFailed(sql: sql) }
            let explained = try first.decode(column: "QUERY PLAN", as: [ExplainRow].self)
            guard let plan = explained.first?.plan else { throw ExplainFailed(sql: sql) }
            backend.record(ExplainedStatement(sql: sql, plan: plan))
        }
        try await inner.execute(sql: query, onRow)
    }
}

/// Already serialized SQL with its binds, as one expression.
private struct SQLRawWithBinds: SQLExpression {
    let sql: String
    let binds: [any Encodable & Sendable]
    init(_ sql: String, _ binds: [any Encodable & Sendable]) { (self.sql, self.binds) = (sql, binds) }
    func serialize(to serializer: inout SQLSerializer) {
        serializer.write(sql)
        serializer.binds += binds
    }
}

struct ExplainFailed: Error, CustomStringConvertible {
    let sql: String
    var description: String { "EXPLAIN returned no plan for: \(sql)" }
}
