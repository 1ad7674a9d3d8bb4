import Crypto
import Foundation
import HTTPTypes
import HeraldCore
import HeraldStore
import Hummingbird
import NIOCore

/// `Idempotency-Key` on the routes that create a message (a publish, a push with a template, a Live Activity
/// publish): the first request with the app's key publishes, and within 24 hours a retry of it answers what
/// the first answered, byte for byte, sending nothing again; another request with the key is 422, code 5090.
///
/// The key is written in the transaction that stores the message (`MessageStore.insert`), so after an
/// answer lost in a database failover a retry finds the key iff the message was stored. Two requests with
/// one key at once: one stores its message, the other's transaction finds the key taken (on PostgreSQL it
/// waits for the first to end), stores nothing and answers as the first did.
struct IdempotentPublish {
    static let header = HTTPField.Name(IdempotencyKey.headerName)!
    /// Set (`true`) on an answer that a retry got from its key, not from a publish of its own.
    static let replayedHeader = HTTPField.Name("Idempotent-Replayed")!

    let messages: any MessageStore
    let clock: any WallClock

    /// Answers a request that creates a message. `publish` stores the message with the id it is given and,
    /// when the request has a key, the record it is given in the same transaction. `body` is the request's
    /// body as collected (`JSONBody.collect`): part of what identifies the request.
    func answer(
        _ request: Request, _ context: HeraldRequestContext, body: ByteBuffer,
        publish: (_ id: String, _ idempotency: IdempotencyRecord?) async throws -> Void
    ) async throws -> Response {
        guard let key = try IdempotencyKey(headerValues: request.headers[values: Self.header]) else {
            let id = MessageRoutes.newMessageID()
            try await publish(id, nil)
            return MessageRoutes.accepted(id)
        }
        let (record, replayed) = try await once(
            app: try context.appId(), key: key.rawValue, hash: Self.requestHash(request, body: body),
            reused: { _ in .idempotencyKeyReused(key) }, publish: publish)
        return Self.response(record, replayed: replayed)
    }

    /// The record of the one publish made with the app's `key`: the one stored already (`replayed`), or the
    /// one `publish` stores now with its message. A stored record of another request (`hash`) is refused
    /// with `reused`'s fault. The route's header and the console's forms both go through here.
    func once(
        app: String, key: String, hash: String, reused: (IdempotencyRecord) -> HeraldFault,
        publish: (_ id: String, _ idempotency: IdempotencyRecord?) async throws -> Void
    ) async throws -> (record: IdempotencyRecord, replayed: Bool) {
        // A key found taken at the insert was committed by another request with it: read it again and answer
        // by it. (Twice more at most: only a key that expired in between could be missing then.)
        for _ in 0..<3 {
            let now = clock.now
            if let found = try await messages.idempotencyRecord(app: app, key: key, now: now) {
                guard found.requestHash == hash else { throw reused(found) }
                return (found, true)
            }
            let id = MessageRoutes.newMessageID()
            let record = IdempotencyRecord(
                app: app, key: key, requestHash: hash, messageId: id, status: Int(HTTPResponse.Status.ok.code),
                body: MessageRoutes.acceptedBody(id), createdAt: now)
            do {
                try await publish(id, record)
                return (record, false)
            } catch is IdempotencyKeyTaken {
                continue
            }
        }
        throw HeraldFault.internalError
    }

    /// A SHA-256 digest in hex, as records keep what identifies a request.
    static func hex(_ digest: SHA256.Digest) -> String { digest.map { String(format: "%02x", $0) }.joined() }

    /// SHA-256 (hex) of the method, the path without its API key segment (a retry may use another key of the
    /// app), and the body's bytes: what must be the same for a retry to be one.
    static func requestHash(_ request: Request, body: ByteBuffer) -> String {
        var segments = request.uri.path.split(separator: "/", omittingEmptySubsequences: false)
        // "", appId, apiKey, …
        if segments.count > 2 { segments.remove(at: 2) }
        var hasher = SHA256()
        hasher.update(data: Array("\(request.method.rawValue) \(segments.joined(separator: "/"))\n".utf8))
        body.withUnsafeReadableBytes { hasher.update(bufferPointer: $0) }
        return hex(hasher.finalize())
    }

    /// The answer a record keeps; a retry's says it is one (`Idempotent-Replayed: true`).
    static func response(_ record: IdempotencyRecord, replayed: Bool) -> Response {
        var headers: HTTPFields = [.contentType: "application/json"]
        if replayed { headers[Self.replayedHeader] = "true" }
        // 200 (all a record holds today) with its reason phrase, as the first answer had it.
        let status = record.status == HTTPResponse.Status.ok.code ? .ok : HTTPResponse.Status(code: record.status)
        return Response(
            status: status, headers: headers,
            body: ResponseBody(byteBuffer: ByteBuffer(string: record.body)))
    }
}
