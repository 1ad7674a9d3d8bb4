import HeraldCore
import Hummingbird
import HummingbirdTesting
import Testing

@Suite struct ChannelAPITests {
    @Test func listingShowsLiveCountsAndDeletingRemovesRegistrations() async throws {
        try await TestHerald.with { h in
            let register = "/shop/k-client/messaging/registrations"
            try await h.client.call(.post, register, json: #"{"deviceToken": "ab", "deviceId": "d1", "channels": ["news", "sport"]}"#)
            try await h.client.call(.post, register, json: #"{"deviceToken": "cd", "deviceId": "d2", "channels": ["news"]}"#)
            let listed = try await h.client.call(.get, "/shop/k-admin/messaging/channels")
            #expect(listed.status == .ok)
            #expect(
                listed.body
                    == .array([
                        .object(["name": .string("news"), "registrations": .integer(2)]),
                        .object(["name": .string("sport"), "registrations": .integer(1)]),
                    ]))
            let deleted = try await h.client.call(.delete, "/shop/k-server/messaging/channels/news")
            #expect(deleted.status == .ok && deleted.body == .object(["result": .bool(true)]))
            #expect(try await h.client.call(.get, register + "/d2").body.code == 5000)
            #expect(try await h.client.call(.get, register + "/d1").body[0]?["channels"] == .array([.string("sport")]))
            let again = try await h.client.call(.delete, "/shop/k-server/messaging/channels/news")
            #expect(again.status == .notFound && again.body.code == 5010)
        }
    }

    @Test func invalidChannelNamesAre5044Or8000() async throws {
        try await TestHerald.with(file: false) { h async throws in
            #expect(try await h.client.call(.delete, "/shop/k-server/messaging/channels/bad%20name").body.code == 5044)
            #expect(try await h.client.call(.delete, "/shop/k-server/messaging/channels/push").body.code == 5044)
            let long = String(repeating: "c", count: 129)
            #expect(try await h.client.call(.delete, "/shop/k-server/messaging/channels/\(long)").body.code == 8000)
        }
    }

    /// With `limit` or `cursor` the listing pages in byte order of names (upper case before lower, `_`
    /// between them, `~` last), the same on SQLite and PostgreSQL whatever its collation; the cursor is
    /// the page's last name. Without either it is the bare array of before.
    @Test(arguments: PublishHarness.Database.available)
    func theChannelListingPagesInByteOrder(_ database: PublishHarness.Database) async throws {
        try await TestHerald.with(database: database) { h in
            let names = ["news", "News", "_inbox", "zeta", "Alpha", "0day", "~tilde", "a.b", "a-b", "a:b", "A_B"]
            let body = #"{"deviceToken": "ab", "deviceId": "d1", "channels": [\#(names.map { "\"\($0)\"" }.joined(separator: ","))]}"#
            #expect(try await h.client.call(.post, "/shop/k-client/messaging/registrations", json: body).status == .ok)
            let byteOrder = names.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
            var seen: [String] = []
            var cursor: String?
            var pages = 0
            repeat {
                let answer = try await h.client.call(
                    .get, "/shop/k-admin/messaging/channels?limit=3" + (cursor.map { "&cursor=\($0)" } ?? ""))
                #expect(answer.status == .ok)
                guard case .array(let channels)? = answer.body["channels"] else {
                    Issue.record("no channels in \(answer.body)")
                    return
                }
                #expect(channels.count <= 3)
                for channel in channels {
                    if case .string(let name)? = channel["name"] { seen.append(name) }
                    #expect(channel["registrations"] == .integer(1))
                }
                if case .string(let next)? = answer.body["nextCursor"] { cursor = next } else { cursor = nil }
                pages += 1
            } while cursor != nil && pages < 10
            #expect(seen == byteOrder)
            #expect(pages == 4)
            let bare = try await h.client.call(.get, "/shop/k-admin/messaging/channels")
            guard case .array(let all) = bare.body else {
                Issue.record("the bare listing is an array: \(bare.body)")
                return
            }
            #expect(
                all.compactMap { channel -> String? in if case .string(let name)? = channel["name"] { name } else { nil } } == byteOrder)
            for bad in ["limit=0", "limit=1001", "limit=x", "cursor=bad%20name"] {
                #expect(try await h.client.call(.get, "/shop/k-admin/messaging/channels?\(bad)").body.code == 8008, "\(bad)")
            }
        }
    }
}
