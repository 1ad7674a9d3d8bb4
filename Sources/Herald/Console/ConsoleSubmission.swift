import Crypto
import Foundation
import HeraldCore
import HeraldStore

/// A console form that creates a message sends it once. Its page carries a fresh key in a hidden field,
/// which the publish stores as it stores an `Idempotency-Key` (with the message, in its transaction, for
/// 24 hours), so a second post of the same page (a double click, a reload that posts again, a retry after
/// an answer lost in a database failover) leads to the message the first one made instead of sending
/// another. The key lives in the app's keys as `console:` and a UUID, apart from the API's.
struct ConsoleSubmission {
    static let field = "submission"

    /// The hidden field with a new key, for a form that creates a message.
    static func hiddenField() -> HTML {
        "<input type=\"hidden\" name=\"\(field)\" value=\"\(UUID().uuidString.lowercased())\">"
    }

    /// Runs `publish` unless this page's key already made a message: returns the id of the message the
    /// page made. `kind` and the form's fields (all but the CSRF token) say what was asked: the same page
    /// posted again with other values is refused, naming the message it made. (The fields, not the body
    /// built from them: that holds times computed at the post, such as "seen within 7 days".) A form
    /// without the field (an old page) publishes as before.
    static func once(
        _ console: ConsoleRequest, kind: String, messages: any MessageStore, clock: any WallClock,
        publish: (_ id: String, _ idempotency: IdempotencyRecord?) async throws -> String
    ) async throws -> String {
        guard let text = console.form[field], let uuid = UUID(uuidString: text) else {
            return try await publish(MessageRoutes.newMessageID(), nil)
        }
        let key = "console:" + uuid.uuidString.lowercased()
        let fields = console.form.all.filter { $0.key != "csrf" }.sorted { $0.key < $1.key }
        let fingerprint = SortedJSON.text(
            JSONValue.object(["kind": .string(kind), "fields": .array(fields.map { .array([.string($0.key), .string($0.value)]) })]))
        let made = try await IdempotentPublish(messages: messages, clock: clock).once(
            app: console.session.app, key: key, hash: IdempotentPublish.hex(SHA256.hash(data: Array(fingerprint.utf8))),
            reused: { found in
                HeraldFault(
                    code: 5090, kind: .unprocessable,
                    message: "This page was sent already (message \(found.messageId)) with other values; reload the page to send another")
            },
            publish: { id, idempotency in _ = try await publish(id, idempotency) })
        return made.record.messageId
    }
}
