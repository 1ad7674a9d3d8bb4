import Foundation
import HeraldCore
import SQLKit

/// Which apps want events, and how a change writes one: into `webhook_events`, in the transaction of
/// the change itself, so an event exists exactly when its change committed (a crash loses neither
/// alone). The webhook service delivers them later (`WebhookOutboxStore`).
public struct EventOutbox: Sendable, Equatable {
    /// Apps with a webhook; changes in other apps write no event.
    public var apps: Set<String>

    public init(apps: Set<String>) { self.apps = apps }

    /// No app has a webhook.
    public static let none = EventOutbox(apps: [])

    /// Appends one event for `app` when it has a webhook. `data` is the event's own part.
    func append(_ db: any SQLDatabase, app: String, type: WebhookEventType, data: [String: JSONValue], at: Int64) async throws {
        guard apps.contains(app) else { return }
        let id = "evt_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        let event: JSONValue = .object([
            "id": .string(id), "type": .string(type.rawValue), "appId": .string(app), "createdAt": .integer(at),
            "data": .object(data),
        ])
        let payload = String(decoding: try Self.encoder.encode(event), as: UTF8.self)
        // The device the event is about, so that erasing the device erases its undelivered events too.
        let device: String? = if case .string(let id)? = data["deviceId"] { id } else { nil }
        try await db.raw(
            """
            INSERT INTO webhook_events (event_id, app_id, type, payload, created_at, next_attempt_at, device_id)
            VALUES (\(bind: id), \(bind: app), \(bind: type.rawValue), \(bind: payload), \(bind: at), \(bind: at), \(bind: device))
            """
        ).run()
    }

    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()
}
