import APNsMock
import Foundation
import HTTPTypes
import Herald
import HeraldCore
import HeraldStore
import Hummingbird
import HummingbirdTesting
import SQLKit
import Testing

/// `Idempotency-Key` on the routes that create a message (issue 52): a retry answers what the first request
/// answered and sends nothing again; another request with the key is 422/5090; keys are checked, per app,
/// honoured for 24 hours and then swept; and a key is written in its message's transaction, never alone.
@Suite struct IdempotencyKeyTests {
    static let body = #"{"message": "Hi"}"#

    @Test(arguments: PublishHarness.Database.available)
    func aRetryWithTheKeyAnswersTheSameAndSendsNothingAgain(_ database: PublishHarness.Database) async throws {
        try await PublishHarness.with(database: database) { h in
            try await h.registerDevices(0..<3)
            let first = try await h.keyed("news", Self.body, keys: ["order-42"])
            #expect(first.status == .ok, "\(first.body)")
            #expect(first.replayed == nil)
            let id = try #require(first.messageId)
            try await h.waitFor(id, status: "published")
            try await h.waitForMock(3)
            let requests = h.mock.stats().requests

            let retry = try await h.keyed("news", Self.body, keys: ["order-42"])
            #expect(retry.status == .ok)
            #expect(retry.bytes == first.bytes, "the first answer, byte for byte")
            #expect(retry.messageId == id)
            #expect(retry.replayed == "true")
            // Another key of the app (admin) is the same request: the API key is not part of it.
            let byAdmin = try await h.keyed("news", Self.body, keys: ["order-42"], apiKey: "k-admin")
            #expect(byAdmin.status == .ok && byAdmin.messageId == id, "\(byAdmin.body)")

            try await h.expectNoMoreRequests(than: requests)
            #expect(h.mock.notifications().count == 3, "sent once")
            #expect(try await h.count("messages") == 1)
            #expect(try await h.count("idempotency_keys") == 1)
            // Without a key, the same body publishes again.
            _ = try await h.publish("news", Self.body)
            #expect(try await h.count("messages") == 2)
        }
    }

    @Test(arguments: PublishHarness.Database.available)
    func theKeyWithAnotherRequestIs422With5090(_ database: PublishHarness.Database) async throws {
        try await PublishHarness.with(database: database) { h in
            let id = try #require(try await h.keyed("news", Self.body, keys: ["k"]).messageId)
            let others: [(String, String?)] = [
                ("news", #"{"message": "Hello"}"#),  // another body
                ("news", #"{"message":"Hi"}"#),  // the same JSON, other bytes: a retry sends the same bytes
                ("sport", Self.body),  // another channel
                (
                    "news/live-activity",
                    #"{"event": "start", "attributesType": "A", "attributes": {}, "contentState": {}, "alert": {"title": "t", "body": "b"}}"#
                ),
                ("push/sale", nil),  // another route
            ]
            for (path, body) in others {
                let answer = try await h.keyed(path, body, keys: ["k"])
                #expect(answer.status == .unprocessableContent, "\(path): \(answer.body)")
                #expect(answer.body.code == 5090, "\(path): \(answer.body)")
                let message = answer.body.faultMessage ?? ""
                #expect(message.contains("Idempotency-Key 'k'") && message.contains("different request"), "\(message)")
            }
            #expect(try await h.count("messages") == 1)
            #expect(try await h.keyed("news", Self.body, keys: ["k"]).messageId == id, "the first request still answers")
        }
    }

    @Test func anInvalidKeyIsRefusedNamingTheHeaderAndNothingIsStored() async throws {
        try await PublishHarness.with { h in
            let refused: [([String], Int64)] = [
                ([""], 8008),
                ([String(repeating: "k", count: 256)], 8000),
                (["tab\tinside"], 8008),
                (["café"], 8008),
                (["one", "two"], 8008),
            ]
            for (keys, code) in refused {
                let answer = try await h.keyed("news", Self.body, keys: keys)
                #expect(answer.status == .badRequest, "\(keys): \(answer.body)")
                #expect(answer.body.code == code, "\(keys): \(answer.body)")
                #expect(answer.body.faultMessage?.contains("Idempotency-Key") == true, "\(answer.body)")
            }
            #expect(try await h.count("messages") == 0)
            for key in [String(repeating: "k", count: 255), "a", " !~{}\"'; =,/"] {
                #expect(try await h.keyed("news", Self.body, keys: [key]).status == .ok, "\(key)")
            }
            #expect(try await h.count("messages") == 3)
        }
    }

    @Test(arguments: PublishHarness.Database.available)
    func keysArePerApp(_ database: PublishHarness.Database) async throws {
        try await PublishHarness.with(database: database) { h in
            let shop = try await h.keyed("news", Self.body, keys: ["same"])
            let blog = try await h.keyed("news", Self.body, keys: ["same"], apiKey: "b-admin", app: "blog")
            #expect(shop.status == .ok && blog.status == .ok, "\(blog.body)")
            #expect(blog.replayed == nil)
            #expect(shop.messageId != nil && blog.messageId != nil && shop.messageId != blog.messageId)
            // blog's other body is blog's business: shop's key says nothing of it.
            let other = try await h.keyed("news", #"{"message": "Hello"}"#, keys: ["same"], apiKey: "b-admin", app: "blog")
            #expect(other.body.code == 5090)
            #expect(try await h.keyed("news", Self.body, keys: ["same"]).messageId == shop.messageId)
            #expect(try await h.count("messages") == 2)
        }
    }

    @Test(arguments: PublishHarness.Database.available)
    func aKeyIsHonouredFor24HoursThenSwept(_ database: PublishHarness.Database) async throws {
        try await PublishHarness.with(database: database) { h in
            let first = try #require(try await h.keyed("news", Self.body, keys: ["daily"]).messageId)
            try await h.waitFor(first, status: "published")
            h.clock.advance(milliseconds: IdempotencyKey.lifetimeMilliseconds - 1)
            #expect(try await h.keyed("news", Self.body, keys: ["daily"]).messageId == first, "a moment before 24 hours")
            let early = try await h.client.call(.post, "/shop/k-admin/admin/sweep")
            #expect(early.body["idempotencyKeysRemoved"] == .integer(0))

            h.clock.advance(milliseconds: 1)
            // Expired: a new publish, whatever its body, which takes the key again.
            let second = try await h.keyed("news", #"{"message": "Hello"}"#, keys: ["daily"])
            #expect(second.status == .ok && second.replayed == nil, "\(second.body)")
            let secondId = try #require(second.messageId)
            #expect(secondId != first)
            #expect(try await h.keyed("news", #"{"message": "Hello"}"#, keys: ["daily"]).messageId == secondId)
            try await h.waitFor(secondId, status: "published")
            _ = try await h.keyed("news", Self.body, keys: ["other"])
            #expect(try await h.count("idempotency_keys") == 2)

            h.clock.advance(milliseconds: IdempotencyKey.lifetimeMilliseconds)
            // The other app's sweep leaves shop's keys; shop's removes them.
            #expect(try await h.client.call(.post, "/blog/b-admin/admin/sweep").body["idempotencyKeysRemoved"] == .integer(0))
            let swept = try await h.client.call(.post, "/shop/k-admin/admin/sweep")
            #expect(swept.body["idempotencyKeysRemoved"] == .integer(2), "\(swept.body)")
            #expect(try await h.count("idempotency_keys") == 0)
            #expect(h.exporter.exposition().contains(#"herald_sweep_removed_total{kind="idempotency_keys"} 2"#))
        }
    }

    @Test(arguments: PublishHarness.Database.available)
    func requestsWithOneKeyAtOnceStoreOneMessage(_ database: PublishHarness.Database) async throws {
        try await PublishHarness.with(database: database) { h in
            try await h.registerDevices(0..<2)
            let answers = try await withThrowingTaskGroup(of: KeyedAnswer.self) { group in
                for _ in 0..<8 { group.addTask { try await h.keyed("news", Self.body, keys: ["once"]) } }
                return try await group.reduce(into: [KeyedAnswer]()) { $0.append($1) }
            }
            #expect(answers.allSatisfy { $0.status == .ok }, "\(answers.map(\.body))")
            let ids = Set(answers.compactMap(\.messageId))
            #expect(ids.count == 1, "\(ids)")
            #expect(answers.filter { $0.replayed == nil }.count == 1, "one published, the others were answered by its key")
            #expect(try await h.count("messages") == 1)
            try await h.waitFor(try #require(ids.first), status: "published")
            try await h.expectNoMoreRequests(than: 2)
            #expect(h.mock.notifications().count == 2)
        }
    }

    @Test(arguments: PublishHarness.Database.available)
    func aKeyIsWrittenInItsMessagesTransactionOnly(_ database: PublishHarness.Database) async throws {
        try await PublishHarness.with(database: database) { h in
            let now = h.clock.now
            @Sendable func message(_ id: String) throws -> StoredMessage {
                let body = #"{"message": "Hi", "publishAt": \#(now.milliseconds + 3_600_000)}"#
                return StoredMessage(
                    id: id, app: "shop", channel: try ChannelName(validating: "quiet"),
                    request: try PublishRequest(json: try JSONValue.parse(Array(body.utf8)), now: now), now: now)
            }
            @Sendable func record(_ key: String, _ id: String) -> IdempotencyRecord {
                IdempotencyRecord(app: "shop", key: key, requestHash: "hash", messageId: id, status: 200, body: "{}", createdAt: now)
            }
            @Sendable func claimed(_ id: String, _ key: String) async throws {
                _ = try await h.messages.insertClaimed(
                    try message(id), now: now, owner: "test", leaseMilliseconds: 60_000, slicing: Slicing(),
                    idempotency: record(key, id))
            }
            // A message that cannot be stored (its id is taken) leaves no key behind: the lost-answer retry finds
            // the key iff the message exists.
            try await h.messages.insert(try message("message:taken"), now: now)
            await #expect(throws: (any Error).self) {
                try await h.messages.insert(try message("message:taken"), now: now, idempotency: record("k1", "message:taken"))
            }
            await #expect(throws: (any Error).self) { try await claimed("message:taken", "k2") }
            for key in ["k1", "k2"] { #expect(try await h.messages.idempotencyRecord(app: "shop", key: key, now: now) == nil) }

            // A key that is taken stores no message.
            try await h.messages.insert(try message("message:first"), now: now, idempotency: record("k3", "message:first"))
            await #expect(throws: IdempotencyKeyTaken.self) {
                try await h.messages.insert(try message("message:second"), now: now, idempotency: record("k3", "message:second"))
            }
            await #expect(throws: IdempotencyKeyTaken.self) { try await claimed("message:third", "k3") }
            for id in ["message:second", "message:third"] { #expect(try await h.messages.message(app: "shop", id: id) == nil) }
            #expect(try await h.messages.idempotencyRecord(app: "shop", key: "k3", now: now)?.messageId == "message:first")

            // And a keyed publish over HTTP writes both.
            _ = try await h.keyed("news", Self.body, keys: ["k4"])
            #expect(try await h.count("idempotency_keys") == 2)
            #expect(try await h.count("idempotency_keys k WHERE NOT EXISTS (SELECT 1 FROM messages m WHERE m.id = k.message_id)") == 0)
        }
    }

    @Test(arguments: PublishHarness.Database.available)
    func aTemplatePushAndALiveActivityPublishHonourTheKey(_ database: PublishHarness.Database) async throws {
        try await PublishHarness.with(database: database) { h in
            try await h.registerDevices(0..<2, channels: ["deals"])
            let put = try await h.client.call(
                .put, "/shop/k-admin/admin/pushtemplates/sale", json: #"{"message": "Hi {user}", "audience": {"channels": ["deals"]}}"#)
            #expect(put.status == .created, "\(put.body)")
            let values = #"{"templateValues": {"user": "Ana"}}"#
            let pushed = try await h.keyed("push/sale", values, keys: ["tpl"])
            let id = try #require(pushed.messageId, "\(pushed.body)")
            try await h.waitFor(id, status: "published")
            let requests = h.mock.stats().requests
            let again = try await h.keyed("push/sale", values, keys: ["tpl"])
            #expect(again.messageId == id && again.replayed == "true" && again.bytes == pushed.bytes)
            // A push with no body is a request too, and the same one when retried.
            let bare = try await h.keyed("push/sale", nil, keys: ["bare"])
            #expect(try await h.keyed("push/sale", nil, keys: ["bare"]).messageId == bare.messageId)

            let start =
                #"{"event": "start", "attributesType": "MatchAttributes", "attributes": {"home": "Lyon"}, "contentState": {"home": 0}, "alert": {"title": "Kick-off", "body": "Lyon"}}"#
            let live = try await h.keyed("deals/live-activity", start, keys: ["la"])
            let liveId = try #require(live.messageId, "\(live.body)")
            #expect(try await h.keyed("deals/live-activity", start, keys: ["la"]).messageId == liveId)
            #expect(try await h.keyed("deals/live-activity", start, keys: ["tpl"]).body.code == 5090)
            try await h.waitFor(bare.messageId ?? "", status: "published")
            #expect(try await h.count("messages") == 3)
            try await h.expectNoMoreRequests(than: requests + 2, for: .milliseconds(200))
        }
    }
}

/// A keyed request's answer: status, JSON, the body's bytes and `Idempotent-Replayed`.
struct KeyedAnswer: Sendable {
    var status: HTTPResponse.Status
    var body: JSONValue
    var bytes: [UInt8]
    var replayed: String?

    var messageId: String? {
        if case .string(let id)? = body["messageId"] { return id }
        return nil
    }
}

extension PublishHarness.Harness {
    /// POSTs `body` to `…/messaging/{path}` of `app` with each of `keys` as an `Idempotency-Key` header.
    func keyed(
        _ path: String, _ body: String?, keys: [String], apiKey: String = "k-server", app: String = "shop"
    ) async throws -> KeyedAnswer {
        var headers: HTTPFields = [.contentType: "application/json"]
        for key in keys { headers.append(HTTPField(name: HTTPField.Name("Idempotency-Key")!, value: key)) }
        return try await client.execute(
            uri: "/\(app)/\(apiKey)/messaging/\(path)", method: .post, headers: headers, body: body.map { ByteBuffer(string: $0) }
        ) { response in
            let bytes = Array(response.body.readableBytesView)
            return KeyedAnswer(
                status: response.status, body: bytes.isEmpty ? .null : try JSONValue.parse(bytes), bytes: bytes,
                replayed: response.headers[HTTPField.Name("Idempotent-Replayed")!])
        }
    }

    /// Rows of `table` (and what follows it: an alias and a WHERE).
    func count(_ table: String) async throws -> Int {
        try await store.backend.read { db in
            try await db.raw("SELECT COUNT(*) AS n FROM \(unsafeRaw: table)").first()?.decode(column: "n", as: Int.self) ?? -1
        }
    }
}
