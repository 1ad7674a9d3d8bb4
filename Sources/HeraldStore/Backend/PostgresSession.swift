import PostgresKit
import PostgresNIO
import SQLKit

/// The `SQLDatabase` a PostgreSQL read or write runs on (`ConnectionSession`): PostgresKit's own for one
/// pooled connection, with that connection kept beside it, so a statement that binds through PostgresNIO
/// directly (`RegistrationBatch+Postgres`, `StoreRows`) runs on the same connection and in the same
/// transaction.
struct PostgresSession: ConnectionSession {
    let connection: PostgresConnection
    let base: any SQLDatabase

    init(_ connection: PostgresConnection) {
        self.connection = connection
        base = connection.sql(queryLogLevel: nil)
    }
}
