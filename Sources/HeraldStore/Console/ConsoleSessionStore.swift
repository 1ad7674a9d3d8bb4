import HeraldCore
import SQLKit

/// A signed-in console session (issue 25): the app it was opened for, its CSRF token, and its times.
public struct ConsoleSession: Sendable, Equatable {
    public let app: String
    /// A SHA-256 of the admin key it was opened with (the key itself is never kept).
    public let keyHash: String
    public let csrf: String
    public let createdAt: Timestamp
    public let lastSeenAt: Timestamp

    public init(app: String, keyHash: String, csrf: String, createdAt: Timestamp, lastSeenAt: Timestamp) {
        self.app = app
        self.keyHash = keyHash
        self.csrf = csrf
        self.createdAt = createdAt
        self.lastSeenAt = lastSeenAt
    }
}

/// How long a console session lives: idle since its last request, and in all since it was opened.
public struct ConsoleSessionPolicy: Sendable, Equatable {
    public let idleMilliseconds: Int64
    public let absoluteMilliseconds: Int64

    public init(idleMilliseconds: Int64, absoluteMilliseconds: Int64) {
        self.idleMilliseconds = idleMilliseconds
        self.absoluteMilliseconds = absoluteMilliseconds
    }

    func live(_ session: ConsoleSession, now: Timestamp) -> Bool {
        now.milliseconds - session.lastSeenAt.milliseconds < idleMilliseconds
            && now.milliseconds - session.createdAt.milliseconds < absoluteMilliseconds
    }
}

/// Console sessions in the database, so that every instance on one PostgreSQL database knows them. Rows
/// are keyed by a hash of the session's token: the token itself is only ever in the browser's cookie.
public protocol ConsoleSessionStore: Sendable {
    func create(tokenHash: String, session: ConsoleSession) async throws

    /// The live session with this token hash, its last use moved to `now` (written at most once a
    /// minute) unless `touch` is false (a page's own background refresh, which is not the person using
    /// it); nil when there is none or it timed out (and is then removed).
    func session(tokenHash: String, now: Timestamp, policy: ConsoleSessionPolicy, touch: Bool) async throws -> ConsoleSession?

    /// Removes it (log out); false when there was none.
    @discardableResult
    func delete(tokenHash: String) async throws -> Bool

    /// Removes the sessions that timed out; returns how many.
    func prune(now: Timestamp, policy: ConsoleSessionPolicy) async throws -> Int
}

public struct SQLConsoleSessionStore: ConsoleSessionStore {
    let backend: any SQLBackend

    public init(backend: any SQLBackend) { self.backend = backend }

    /// A session's last use is written again only after this long, so reading pages costs no write each.
    static let touchMilliseconds: Int64 = 60_000

    public func create(tokenHash: String, session: ConsoleSession) async throws {
        try await backend.write { db in
            try await db.raw(
                """
                INSERT INTO console_sessions (token_hash, app_id, key_hash, csrf, created_at, last_seen_at)
                VALUES (\(bind: tokenHash), \(bind: session.app), \(bind: session.keyHash), \(bind: session.csrf), \(bind: session.createdAt.milliseconds),
                    \(bind: session.lastSeenAt.milliseconds))
                """
            ).run()
        }
    }

    public func session(tokenHash: String, now: Timestamp, policy: ConsoleSessionPolicy, touch: Bool = true) async throws -> ConsoleSession?
    {
        let found = try await backend.read { db in
            try await db.raw(
                "SELECT app_id, key_hash, csrf, created_at, last_seen_at FROM console_sessions WHERE token_hash = \(bind: tokenHash)"
            ).first().map { row in
                ConsoleSession(
                    app: try row.decode(column: "app_id", as: String.self), keyHash: try row.decode(column: "key_hash", as: String.self),
                    csrf: try row.decode(column: "csrf", as: String.self),
                    createdAt: Timestamp(milliseconds: try row.decode(column: "created_at", as: Int64.self)),
                    lastSeenAt: Timestamp(milliseconds: try row.decode(column: "last_seen_at", as: Int64.self)))
            }
        }
        guard let found else { return nil }
        guard policy.live(found, now: now) else {
            try await delete(tokenHash: tokenHash)
            return nil
        }
        guard touch else { return found }
        if now.milliseconds - found.lastSeenAt.milliseconds >= Self.touchMilliseconds {
            try await backend.write { db in
                try await db.raw(
                    "UPDATE console_sessions SET last_seen_at = \(bind: now.milliseconds) WHERE token_hash = \(bind: tokenHash)"
                ).run()
            }
        }
        return ConsoleSession(app: found.app, keyHash: found.keyHash, csrf: found.csrf, createdAt: found.createdAt, lastSeenAt: now)
    }

    @discardableResult
    public func delete(tokenHash: String) async throws -> Bool {
        try await backend.write { db in
            !(try await db.raw("DELETE FROM console_sessions WHERE token_hash = \(bind: tokenHash) RETURNING app_id").all().isEmpty)
        }
    }

    public func prune(now: Timestamp, policy: ConsoleSessionPolicy) async throws -> Int {
        try await backend.write { db in
            try await db.raw(
                """
                DELETE FROM console_sessions
                WHERE last_seen_at <= \(bind: now.milliseconds - policy.idleMilliseconds)
                    OR created_at <= \(bind: now.milliseconds - policy.absoluteMilliseconds)
                RETURNING app_id
                """
            ).all().count
        }
    }
}
