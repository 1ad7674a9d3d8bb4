import HeraldCore
import Hummingbird
import HummingbirdTesting
import Testing

/// The "Device registration" section of the contract, over HTTP.
@Suite struct RegistrationAPITests {
    let base = "/shop/k-client/messaging/registrations"

    @Test func registerGetUnregister() async throws {
        try await TestHerald.with { h in
            let registered = try await h.client.call(
                .post, base,
                json: """
                    {"deviceToken": "A1B2C3D4", "deviceId": "5A9F", "os": "ios", "osVersion": "17.2", "channels": ["default", "news"]}
                    """)
            #expect(registered.status == .ok)
            guard case .string(let registrationId)? = registered.body["registrationId"] else {
                Issue.record("no registrationId in \(registered.body)")
                return
            }
            #expect(registered.body["channels"]?.keys == ["default", "news"])

            let fetched = try await h.client.call(.get, base + "/5A9F")
            #expect(fetched.status == .ok)
            #expect(fetched.contentType == "application/json")
            let device = try #require(fetched.body[0])
            #expect(fetched.body[1] == nil, "GET answers an array with one object")
            #expect(device["id"] == .string(registrationId))
            #expect(device["deviceToken"] == .string("a1b2c3d4"))
            #expect(device["deviceId"] == .string("5A9F"))
            #expect(device["os"] == .string("IOS"))
            #expect(device["osVersion"] == .string("17.2"))
            #expect(device["channels"] == .array([.string("default"), .string("news")]))
            #expect(device["expiration"] == .null)

            let deleted = try await h.client.call(.delete, base + "/5A9F")
            #expect(deleted.status == .ok)
            #expect(deleted.body == .object(["result": .bool(true)]))
            let gone = try await h.client.call(.get, base + "/5A9F")
            #expect(gone.status == .notFound && gone.body.code == 5000)
        }
    }

    /// The registry's metadata over HTTP: sent, read back, updated field by field; a body without it
    /// (every Backendless SDK) answers every field null; limits and types as the contract says.
    @Test(arguments: PublishHarness.Database.available)
    func deviceMetadataRoundTripsAndIsCheckedOverHTTP(_ database: PublishHarness.Database) async throws {
        try await TestHerald.with(database: database) { h in
            let plain = try await h.client.call(.post, base, json: #"{"deviceToken": "ab", "deviceId": "p1"}"#)
            #expect(plain.status == .ok)
            let bare = try #require(try await h.client.call(.get, base + "/p1").body[0])
            for field in ["installId", "deviceName", "deviceModel", "appVersion", "appBuild", "locale", "timeZone", "location"] {
                #expect(bare[field] == .null, "\(field)")
            }

            let full = try await h.client.call(
                .post, base,
                json: #"""
                    {"deviceToken": "ab", "deviceId": "m1", "installId": "inst-9", "deviceName": "John’s iPhone",
                     "deviceModel": "iPhone15,2", "appVersion": "2.3", "appBuild": "41", "locale": "en-GB",
                     "timeZone": "Europe/London", "location": {"lat": 51.5, "lon": -0.125, "accuracy": 20}}
                    """#)
            #expect(full.status == .ok, "\(full.body)")
            _ = try await h.client.call(.post, base, json: #"{"deviceToken": "cd", "deviceId": "m1", "appVersion": "2.4"}"#)
            let device = try #require(try await h.client.call(.get, base + "/m1").body[0])
            #expect(device["installId"] == .string("inst-9"))
            #expect(device["deviceName"] == .string("John’s iPhone"))
            #expect(device["deviceModel"] == .string("iPhone15,2"))
            #expect(device["appVersion"] == .string("2.4"), "updated")
            #expect(device["appBuild"] == .string("41"), "kept")
            #expect(device["locale"] == .string("en-GB"))
            #expect(device["timeZone"] == .string("Europe/London"))
            // A whole number of metres is written without a fraction, so it reads back as an integer.
            #expect(device["location"] == .object(["lat": .number(51.5), "lon": .number(-0.125), "accuracy": .integer(20)]))
            #expect(device["deviceToken"] == .string("cd"))

            let long = try await h.client.call(
                .post, base, json: #"{"deviceToken": "ab", "deviceId": "m2", "appBuild": "\#(String(repeating: "9", count: 33))"}"#)
            #expect(long.status == .badRequest)
            #expect(long.body.code == 8000)
            #expect(long.body.faultMessage?.contains("appBuild") == true)
            let far = try await h.client.call(
                .post, base, json: #"{"deviceToken": "ab", "deviceId": "m2", "location": {"lat": 100, "lon": 0}}"#)
            #expect(far.status == .badRequest)
            #expect(far.body.code == 8008)
            #expect(try await h.client.call(.get, base + "/m2").status == .notFound, "nothing half-written")
        }
    }

    /// The Backendless Swift SDK asks for push templates after each registration; an error there would reach
    /// the app's error handler although the registration succeeded.
    @Test func pushTemplatesAreAnEmptySetForTheSDKs() async throws {
        try await TestHerald.with(file: false) { h in
            for path in ["messaging/pushtemplates", "messaging/pushtemplates/ios", "messaging/pushtemplates/android"] {
                let answer = try await h.client.call(.get, "/shop/k-client/\(path)")
                #expect(answer.status == .ok, "\(path)")
                #expect(answer.body == .object([:]), "\(path)")
            }
        }
    }

    @Test func channelsAbsentNullOrEmptyMeanDefault() async throws {
        try await TestHerald.with(file: false) { h in
            for (index, fragment) in ["", #", "channels": null"#, #", "channels": []"#].enumerated() {
                let answer = try await h.client.call(.post, base, json: #"{"deviceToken": "ab", "deviceId": "d\#(index)"\#(fragment)}"#)
                #expect(answer.status == .ok)
                let device = try await h.client.call(.get, base + "/d\(index)")
                #expect(device.body[0]?["channels"] == .array([.string("default")]))
            }
        }
    }

    @Test func expirationInSecondsIsAnsweredInMilliseconds() async throws {
        try await TestHerald.with(file: false) { h in
            let seconds = TestHerald.t0.milliseconds / 1000 + 3600
            try await h.client.call(
                .post, base, json: #"{"deviceToken": "ab", "deviceId": "d1", "channels": ["a"], "expiration": \#(seconds)}"#)
            let ms = TestHerald.t0.milliseconds + 7200_000
            try await h.client.call(.post, base, json: #"{"deviceToken": "ab", "deviceId": "d1", "channels": ["b"], "expiration": \#(ms)}"#)
            let device = try await h.client.call(.get, base + "/d1")
            #expect(device.body[0]?["expiration"] == .integer(seconds * 1000), "the earliest expiring channel, in ms")
        }
    }

    @Test func expirationNotInTheFutureIs5004AndNothingIsWritten() async throws {
        try await TestHerald.with(file: false) { h in
            let now = TestHerald.t0.milliseconds
            for value in ["\(now)", "\(now / 1000)", "1", #""2020-01-01T00:00:00Z""#] {
                let answer = try await h.client.call(
                    .post, base, json: #"{"deviceToken": "ab", "deviceId": "d1", "expiration": \#(value)}"#)
                #expect(answer.status == .badRequest)
                #expect(answer.body.code == 5004)
                #expect(answer.body["message"] == .string("Invalid expiration date. The expiration date must be after the current time."))
            }
            #expect(try await h.client.call(.get, base + "/d1").body.code == 5000)
        }
    }

    @Test func expiredRegistrationsAreInvisibleWithoutASweep() async throws {
        try await TestHerald.with { h in
            let expires = TestHerald.t0.milliseconds + 60_000
            try await h.client.call(
                .post, base, json: #"{"deviceToken": "ab", "deviceId": "d1", "channels": ["a"], "expiration": \#(expires)}"#)
            #expect(try await h.client.call(.get, base + "/d1").status == .ok)
            h.clock.advance(milliseconds: 60_000)
            let answer = try await h.client.call(.get, base + "/d1")
            #expect(answer.status == .notFound && answer.body.code == 5000)
            #expect(try await h.client.call(.delete, base + "/d1").body.code == 5001)
        }
    }

    @Test func lastSeenIsUpdatedByEveryRegisterCall() async throws {
        try await TestHerald.with(file: false) { h in
            try await h.client.call(.post, base, json: #"{"deviceToken": "ab", "deviceId": "d1"}"#)
            h.clock.advance(milliseconds: 5_000)
            try await h.client.call(.post, base, json: #"{"deviceToken": "cd", "deviceId": "d1", "channels": ["x"]}"#)
            let device = try await h.client.call(.get, base + "/d1").body[0]
            #expect(device?["createdAt"] == .integer(TestHerald.t0.milliseconds))
            #expect(device?["lastSeenAt"] == .integer(TestHerald.t0.milliseconds + 5_000))
            #expect(device?["deviceToken"] == .string("cd"))
            #expect(device?["channels"] == .array([.string("default"), .string("x")]))
            #expect(device?["isActive"] == .bool(true))
        }
    }

    @Test func unknownDevicesAre5000And5001() async throws {
        try await TestHerald.with(file: false) { h in
            let get = try await h.client.call(.get, base + "/nobody")
            #expect(get.status == .notFound)
            #expect(
                get.body
                    == .object(["code": .integer(5000), "message": .string("Unable to retrieve device registration - unknown device ID")]))
            let delete = try await h.client.call(.delete, base + "/nobody")
            #expect(delete.status == .notFound)
            #expect(
                delete.body
                    == .object(["code": .integer(5001), "message": .string("Unable to cancel device registration - unknown device ID")]))
        }
    }

    @Test func deleteSomeChannelsAnswersRemainingChannels() async throws {
        try await TestHerald.with(file: false) { h in
            try await h.client.call(.post, base, json: #"{"deviceToken": "ab", "deviceId": "d1", "channels": ["a", "b", "c"]}"#)
            let answer = try await h.client.call(.delete, base + "/d1?channels=a,b")
            #expect(answer.status == .ok)
            #expect(answer.body == .object(["result": .bool(true), "remainingChannels": .integer(1)]))
            #expect(try await h.client.call(.get, base + "/d1").body[0]?["channels"] == .array([.string("c")]))
            #expect(try await h.client.call(.delete, base + "/d1?channels=bad%20name").body.code == 5044)
            #expect(try await h.client.call(.delete, base + "/d1?channels=").body.code == 8008)
        }
    }

    @Test func percentEncodedDeviceIdsRoundTrip() async throws {
        try await TestHerald.with(file: false) { h in
            try await h.client.call(.post, base, json: #"{"deviceToken": "ab", "deviceId": "my phone/1"}"#)
            let answer = try await h.client.call(.get, base + "/my%20phone%2F1")
            #expect(answer.status == .ok)
            #expect(answer.body[0]?["deviceId"] == .string("my phone/1"))
        }
    }
}
