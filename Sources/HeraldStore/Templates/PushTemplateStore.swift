import Foundation
import HeraldCore
import SQLKit

/// An app's push templates (issue 24), kept as the checked admin body; both backends share the SQL.
public protocol PushTemplateStore: Sendable {
    /// Creates or replaces `template` in `app`. Returns whether it was new. 8000 when the app already
    /// has `limit` templates and this is another one.
    @discardableResult
    func put(_ template: PushTemplate, app: String, limit: Int, now: Timestamp) async throws -> Bool

    func template(app: String, name: String) async throws -> PushTemplate?

    /// The app's templates by name.
    func templates(app: String) async throws -> [PushTemplate]

    /// Removes one; false when there was none of that name.
    func delete(app: String, name: String) async throws -> Bool
}

public struct SQLPushTemplateStore: PushTemplateStore {
    let backend: any SQLBackend

    public init(backend: any SQLBackend) { self.backend = backend }

    /// The most templates an app may have unless the configuration says otherwise.
    public static let defaultLimit = 500

    public func put(_ template: PushTemplate, app: String, limit: Int, now: Timestamp) async throws -> Bool {
        let body = String(decoding: try JSONEncoder().encode(template.body), as: UTF8.self)
        return try await backend.write { db in
            let updated = try await db.raw(
                """
                UPDATE push_templates SET body = \(bind: body), updated_at = \(bind: now.milliseconds)
                WHERE app_id = \(bind: app) AND name = \(bind: template.name)
                RETURNING name
                """
            ).all()
            if !updated.isEmpty { return false }
            let count =
                try await db.raw("SELECT COUNT(*) AS templates FROM push_templates WHERE app_id = \(bind: app)").first()
                .map { try $0.decode(column: "templates", as: Int.self) } ?? 0
            guard count < limit else { throw HeraldFault.tooManyValues(property: "pushtemplates", limit: limit) }
            // Two instances creating the same new name at once: the second insert does nothing, and its
            // body is then written by the update below, as a replace would.
            try await db.raw(
                """
                INSERT INTO push_templates (app_id, name, body, created_at, updated_at)
                VALUES (\(bind: app), \(bind: template.name), \(bind: body), \(bind: now.milliseconds), \(bind: now.milliseconds))
                ON CONFLICT (app_id, name) DO UPDATE SET body = excluded.body, updated_at = excluded.updated_at
                """
            ).run()
            return true
        }
    }

    public func template(app: String, name: String) async throws -> PushTemplate? {
        try await backend.read { db in
            try await db.raw("SELECT name, body FROM push_templates WHERE app_id = \(bind: app) AND name = \(bind: name)").first()
                .map(Self.decode)
        }
    }

    public func templates(app: String) async throws -> [PushTemplate] {
        try await backend.read { db in
            try await db.raw("SELECT name, body FROM push_templates WHERE app_id = \(bind: app) ORDER BY name").all().map(Self.decode)
        }
    }

    public func delete(app: String, name: String) async throws -> Bool {
        try await backend.write { db in
            !(try await db.raw(
                "DELETE FROM push_templates WHERE app_id = \(bind: app) AND name = \(bind: name) RETURNING name"
            ).all().isEmpty)
        }
    }

    /// A stored row, checked again as it is read (a row written by a build with other limits still reads).
    static func decode(_ row: any SQLRow) throws -> PushTemplate {
        let name = try row.decode(column: "name", as: String.self)
        let body = try JSONValue.parse(Array(try row.decode(column: "body", as: String.self).utf8))
        do {
            return try PushTemplate(name: name, json: body)
        } catch {
            throw StoreInvariantViolation("push template '\(name)' does not read back: \(error.message)")
        }
    }
}
