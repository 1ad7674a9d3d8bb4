import Foundation
import Herald
import HeraldCore
import HeraldStore
import Hummingbird
import HummingbirdTesting
import Testing

/// `GET …/messaging/messages` (issue 25's backend work): an app's messages newest first, filtered by
/// status and channel, paged by cursor, on both backends; the console's Messages page reads the same.
@Suite struct MessageListingAPITests {
    static func list(_ h: TestHerald.Harness, _ query: String, key: String = "k-server", app: String = "shop") async throws -> (
        ids: [String], next: String?, body: JSONValue
    ) {
        let answer = try await h.client.call(.get, "/\(app)/\(key)/messaging/messages\(query)")
        #expect(answer.status == .ok, "\(query): \(answer.body)")
        guard case .array(let messages)? = answer.body["messages"] else { throw HarnessError("no messages in \(answer.body)") }
        let ids = messages.compactMap { $0["messageId"]?.scalarText }
        return (ids, answer.body["nextCursor"]?.scalarText, answer.body)
    }

    /// Every message of the listing `query` names, following its cursors.
    static func all(_ h: TestHerald.Harness, _ query: String, limit: Int) async throws -> [String] {
        var ids: [String] = []
        var cursor: String?
        repeat {
            let separator = query.isEmpty ? "?" : "&"
            let page = try await list(
                h,
                query + "\(separator)limit=\(limit)"
                    + (cursor.map { "&cursor=\($0.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)" } ?? ""))
            #expect(page.ids.count <= limit)
            ids += page.ids
            cursor = page.next
        } while cursor != nil
        return ids
    }

    @Test(arguments: PublishHarness.Database.available)
    func messagesComeNewestFirstByStatusAndChannelAPageAtATime(_ database: PublishHarness.Database) async throws {
        try await TestHerald.with(database: database) { h in
            let later = TestHerald.t0.milliseconds + 3_600_000
            var published: [(id: String, channel: String)] = []
            for index in 0..<8 {
                let channel = index < 5 ? "alpha" : "beta"
                let id = try await PubSubAPITests.publish(h, channel, #"{"message": "m\#(index)", "publishAt": \#(later)}"#)
                published.append((id, channel))
                // Two messages share each millisecond: the id orders them.
                if index % 2 == 1 { h.clock.advance(milliseconds: 1) }
            }
            for cancelled in [published[1].id, published[6].id] {
                #expect(try await h.client.call(.delete, "/shop/k-server/messaging/\(cancelled)").status == .ok)
            }
            // Newest first: by time, then by id within one millisecond.
            let expected = published.enumerated().sorted { a, b in
                a.offset / 2 != b.offset / 2 ? a.offset / 2 > b.offset / 2 : a.element.id > b.element.id
            }.map(\.element.id)
            #expect(try await Self.all(h, "", limit: 3) == expected)
            #expect(try await Self.all(h, "", limit: 1000) == expected)
            #expect(
                try await Self.all(h, "?status=cancelled", limit: 1) == expected.filter { [published[1].id, published[6].id].contains($0) })
            #expect(try await Self.all(h, "?status=scheduled", limit: 4).count == 6)
            #expect(
                try await Self.all(h, "?channel=beta", limit: 2)
                    == expected.filter { id in published.contains { $0.id == id && $0.channel == "beta" } })
            #expect(try await Self.all(h, "?status=scheduled&channel=alpha", limit: 2).count == 4)
            #expect(try await Self.all(h, "?status=published", limit: 5).isEmpty)

            // Each item is the message's status, with its channel and time.
            let first = try await Self.list(h, "?limit=1&status=scheduled")
            let item = try #require(first.body["messages"]?[0])
            #expect(item["channel"] == .string("beta") && item["status"] == .string("scheduled"))
            #expect(item["createdAt"] == .integer(TestHerald.t0.milliseconds + 3))
            #expect(item["deliveries"]?["targeted"] == .integer(0) && item["running"] == .bool(false))
            #expect(item["nextOccurrenceAt"] == .integer(later))
        }
    }

    @Test func badFiltersAndCursorsKeysAndOtherAppsAreRefusedOrSeeNothing() async throws {
        try await TestHerald.with(file: false) { h in
            _ = try await PubSubAPITests.publish(h, "alpha", #"{"message": "m", "publishAt": \#(TestHerald.t0.milliseconds + 60_000)}"#)
            for query in ["?status=sent", "?cursor=nonsense", "?cursor=12~notamessage", "?limit=0", "?channel=%20"] {
                let answer = try await h.client.call(.get, "/shop/k-server/messaging/messages\(query)")
                #expect(answer.status == .badRequest, "\(query): \(answer.body)")
            }
            let client = try await h.client.call(.get, "/shop/k-client/messaging/messages")
            #expect(client.status == .forbidden && client.body.code == 5007)
            #expect(try await Self.list(h, "", key: "k-admin").ids.count == 1)
            #expect(try await Self.list(h, "", key: "b-admin", app: "blog").ids.isEmpty, "another app's messages are not listed")
        }
    }
}
