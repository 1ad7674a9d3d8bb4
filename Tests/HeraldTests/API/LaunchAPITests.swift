import HeraldCore
import Hummingbird
import HummingbirdTesting
import Testing

/// `POST /{appId}/{apiKey}/devices/{deviceId}/launches` over HTTP.
@Suite struct LaunchAPITests {
    @Test(arguments: PublishHarness.Database.available)
    func aLaunchIsRecordedAndAnsweredWithOrWithoutABody(_ database: PublishHarness.Database) async throws {
        try await TestHerald.with(database: database) { h in
            let first = try await h.client.call(.post, "/shop/k-client/devices/phone-1/launches")
            #expect(first.status == .ok, "\(first.body)")
            let t0 = JSONValue.integer(TestHerald.t0.milliseconds)
            #expect(
                first.body
                    == .object([
                        "allowed": .bool(true), "reason": .null, "launchCount": .integer(1), "firstLaunchAt": t0, "lastLaunchAt": t0,
                    ]))

            h.clock.advance(milliseconds: 90_000)
            let second = try await h.client.call(
                .post, "/shop/k-client/devices/phone-1/launches", json: #"{"appVersion": "2.0", "locale": "fr-CA"}"#)
            #expect(second.body["launchCount"] == .integer(2))
            #expect(second.body["firstLaunchAt"] == t0)
            #expect(second.body["lastLaunchAt"] == .integer(TestHerald.t0.milliseconds + 90_000))

            // The launch's metadata is the registry's: a registration later shows it.
            _ = try await h.client.call(
                .post, "/shop/k-client/messaging/registrations", json: #"{"deviceToken": "ab", "deviceId": "phone-1"}"#)
            let device = try #require(try await h.client.call(.get, "/shop/k-client/messaging/registrations/phone-1").body[0])
            #expect(device["appVersion"] == .string("2.0") && device["locale"] == .string("fr-CA"))
        }
    }

    @Test(arguments: PublishHarness.Database.available)
    func badLaunchesAreRefusedAndWriteNothing(_ database: PublishHarness.Database) async throws {
        try await TestHerald.with(database: database) { h in
            let cases: [(String, String?, HTTPResponse.Status, Int64)] = [
                ("/shop/k-client/devices/p/launches", #"{"appVersion": 2}"#, .badRequest, 8008),
                ("/shop/k-client/devices/p/launches", #"{"appBuild": "\#(String(repeating: "1", count: 33))"}"#, .badRequest, 8000),
                ("/shop/k-client/devices/p/launches", "[1]", .badRequest, 8002),
                ("/shop/k-client/devices/p/launches", "{not json", .badRequest, 8002),
                ("/shop/k-client/devices/\(String(repeating: "d", count: 129))/launches", nil, .badRequest, 8000),
                ("/shop/wrong-key/devices/p/launches", nil, .unauthorized, 2002),
                ("/nope/k-client/devices/p/launches", nil, .unauthorized, 2002),
            ]
            for (path, body, status, code) in cases {
                let answer = try await h.client.call(.post, path, json: body)
                #expect(answer.status == status, "\(path) \(body ?? "")")
                #expect(answer.body.code == code, "\(path) \(body ?? ""): \(answer.body)")
            }
            let launched = try await h.client.call(.post, "/shop/k-client/devices/p/launches")
            #expect(launched.body["launchCount"] == .integer(1), "the refused launches left nothing behind")
        }
    }
}
