import Logging
import NIOCore
import PostgresKit
import PostgresNIO
import SQLKit

/// The `SQLDatabase` a PostgreSQL read or write runs on: PostgresKit's own for one pooled connection, with
/// that connection kept beside it, so a statement that binds through PostgresNIO directly
/// (`RegistrationBatch+Postgres`) runs on the same connection and in the same transaction. PostgresKit's
/// type is private and does not expose its connection.
struct PostgresSession: SQLDatabase {
    let connection: PostgresConnection
    private let base: any SQLDatabase

    init(_ connection: PostgresConnection) {
        self.connection = connection
        base = connection.sql(queryLogLevel: nil)
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
