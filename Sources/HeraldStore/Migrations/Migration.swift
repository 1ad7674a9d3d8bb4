import SQLKit

/// One named, ordered schema change. Never edit a shipped migration: add a new one.
struct Migration: Sendable {
    let name: String
    /// The statements, for the dialect at hand; all run in one transaction with the bookkeeping row.
    let statements: @Sendable (StoreDialect) -> [String]
    /// Work SQL alone cannot do (a value computed in Swift), run after the statements in the same transaction,
    /// in batches whose rows it reports.
    let backfill: (@Sendable (any SQLDatabase, BackfillProgress) async throws -> Void)?

    init(
        name: String,
        backfill: (@Sendable (any SQLDatabase, BackfillProgress) async throws -> Void)? = nil,
        statements: @escaping @Sendable (StoreDialect) -> [String]
    ) {
        self.name = name
        self.statements = statements
        self.backfill = backfill
    }
}
