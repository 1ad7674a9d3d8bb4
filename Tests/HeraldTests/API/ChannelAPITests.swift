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
}
