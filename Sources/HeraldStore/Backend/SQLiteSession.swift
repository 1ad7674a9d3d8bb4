import Logging
import NIOCore
import SQLKit
import SQLiteKit

/// The `SQLDatabase` a SQLite read runs on: SQLiteKit's own for one reader connection, with that connection
/// kept beside it, so a hot query can read its rows from SQLiteNIO directly (`StoreRows`). SQLiteKit's type
/// is private and does not expose its connection (the same reason as `PostgresSession`).
struct SQLiteSession: SQLDatabase {
    let connection: SQLiteConnection
    private let base: any SQLDatabase

    init(_ connection: SQLiteConnection) {
        self.connection = connection
        base = connection.sql()
    }

    var logger: Logger { base.logger }
    var eventLoop: any EventLoop { base.eventLoop }
    var version: (any SQLDatabaseReportedVersion)? { base.version }
    var dialect: any SQLDialect { base.dialect }
    var queryLogLevel: Logger.Level? { base.queryLogLevel }

    func execute(sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> Void) -> EventLoopFuture<Void> {
        base.execute(sql: query, onRow)
    }

    func execute(sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> Void) async throws {
        try await base.execute(sql: query, onRow)
    }

    func withSession<R>(_ closure: @escaping @Sendable (any SQLDatabase) async throws -> R) async throws -> R {
        try await closure(self)
    }
}
