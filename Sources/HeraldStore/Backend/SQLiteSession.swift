import SQLKit
import SQLiteKit

/// The `SQLDatabase` a SQLite read runs on (`ConnectionSession`): SQLiteKit's own for one reader connection,
/// with that connection kept beside it, so a hot query can read its rows from SQLiteNIO directly (`StoreRows`).
struct SQLiteSession: ConnectionSession {
    let connection: SQLiteConnection
    let base: any SQLDatabase

    init(_ connection: SQLiteConnection) {
        self.connection = connection
        base = connection.sql()
    }
}
