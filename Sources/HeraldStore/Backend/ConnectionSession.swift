import Logging
import NIOCore
import SQLKit

/// What `SQLiteSession` and `PostgresSession` share: the `SQLDatabase` a read or write runs on is the
/// driver kit's own for one connection (`base`), and the session keeps that connection beside it, so a
/// statement can go to the driver directly (`StoreRows`, `RegistrationBatch+Postgres`) on the same
/// connection and in the same transaction. The kits' own types are private and do not expose their
/// connection.
protocol ConnectionSession: SQLDatabase {
    /// SQLKit's database for the session's connection; everything SQLKit asks is forwarded to it.
    var base: any SQLDatabase { get }
}

extension ConnectionSession {
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
