import SQLKit

/// One named, ordered schema change. Never edit a shipped migration: add a new one.
struct Migration: Sendable {
    let name: String
    /// The statements, for the dialect at hand; all run in one transaction with the bookkeeping row.
    let statements: @Sendable (StoreDialect) -> [String]
}
