import HeraldCore
import SQLKit

extension SQLRegistrationStore {
    public func storedKeys(app: String) async throws -> [APIKey] {
        try await backend.read { db in try await Self.keys(db, app: app) }
    }

    public func storeKeysIfAbsent(app: String, keys: [APIKey], now: Timestamp) async throws -> (keys: [APIKey], created: Bool) {
        try await backend.write { db in
            let existing = try await Self.keys(db, app: app)
            if !existing.isEmpty { return (existing, false) }
            for key in keys {
                try await db.raw(
                    """
                    INSERT INTO app_keys (api_key, app_id, role, created_at)
                    VALUES (\(bind: key.key), \(bind: app), \(bind: key.role.rawValue), \(bind: now.milliseconds))
                    """
                ).run()
            }
            return (keys, true)
        }
    }

    static func keys(_ db: any SQLDatabase, app: String) async throws -> [APIKey] {
        let rows = try await db.raw("SELECT api_key, role FROM app_keys WHERE app_id = \(bind: app) ORDER BY created_at, api_key").all()
        return try rows.compactMap { row in
            guard let role = APIKeyRole(rawValue: try row.decode(column: "role", as: String.self)) else { return nil }
            return APIKey(key: try row.decode(column: "api_key", as: String.self), role: role)
        }
    }
}
