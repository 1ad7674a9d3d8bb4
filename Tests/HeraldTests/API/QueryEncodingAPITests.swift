import HeraldCore
import Hummingbird
import HummingbirdTesting
import Testing

/// Query strings as browsers and HTTP libraries write them: `+` for a space, `%2B` for a plus. Found by the
/// OpenAPI fuzz run (scripts/fuzz-api.sh): schemathesis, like Python's `requests` and JavaScript's
/// `URLSearchParams`, sends `?channels=a,+b`, which Herald refused with 5044 naming `+b`.
@Suite struct QueryEncodingAPITests {
    let base = "/shop/k-client/messaging/registrations"

    @Test func aPlusInTheChannelsListIsASpace() async throws {
        try await TestHerald.with(file: false) { h in
            try await h.client.call(.post, base, json: #"{"deviceToken": "ab", "deviceId": "d1", "channels": ["a", "b", "c"]}"#)
            let answer = try await h.client.call(.delete, base + "/d1?channels=a,+b+")
            #expect(answer.status == .ok, "\(answer.body)")
            #expect(answer.body == .object(["result": .bool(true), "remainingChannels": .integer(1)]))
            #expect(try await h.client.call(.delete, base + "/d1?channels=c%2B").body.code == 5044, "%2B is a plus")
        }
    }

    @Test func aPlusInTheListingsTextIsASpace() async throws {
        try await TestHerald.with(file: false) { h in
            try await h.client.call(
                .post, base, json: #"{"deviceToken": "ab", "deviceId": "d1", "deviceName": "John's iPhone"}"#)
            try await h.client.call(.post, base, json: #"{"deviceToken": "ab", "deviceId": "d+2"}"#)
            let byName = try await h.client.call(.get, "/shop/k-admin/devices?q=John%27s+iPhone")
            #expect(byName.body["devices"]?[0]?["deviceId"] == .string("d1") && byName.body["devices"]?[1] == nil, "\(byName.body)")
            let byPlus = try await h.client.call(.get, "/shop/k-admin/devices?q=d%2B")
            #expect(byPlus.body["devices"]?[0]?["deviceId"] == .string("d+2") && byPlus.body["devices"]?[1] == nil, "\(byPlus.body)")
        }
    }

    @Test func badPercentEncodingInTheQueryIs8008() async throws {
        try await TestHerald.with(file: false) { h in
            try await h.client.call(.post, base, json: #"{"deviceToken": "ab", "deviceId": "d1", "channels": ["a", "b"]}"#)
            let answer = try await h.client.call(.delete, base + "/d1?channels=%FF")
            #expect(answer.status == .badRequest && answer.body.code == 8008, "\(answer.body)")
            #expect(try await h.client.call(.get, base + "/d1").body[0]?["channels"] == .array([.string("a"), .string("b")]))
            #expect(try await h.client.call(.get, "/shop/k-admin/devices?limit=%ZZ").body.code == 8008)
        }
    }
}
