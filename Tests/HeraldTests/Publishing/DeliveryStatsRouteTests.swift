import APNsMock
import FCMMock
import HTTPTypes
import Herald
import HeraldCore
import HeraldStore
import Testing

/// `GET …/admin/stats` after real fan-outs to the mocks: the counts by class are the messages' own, per
/// push service, and one app never sees another's.
@Suite struct DeliveryStatsRouteTests {
    @Test(arguments: PublishHarness.Database.available)
    func theStatisticsAreTheFanOutsCountsByClass(_ database: PublishHarness.Database) async throws {
        try await PublishHarness.with(database: database, fcm: true) { h in
            let fcm = try #require(h.fcmMock)
            try await h.registerDevices(0..<10)
            try await MixedChannelTests.registerAndroid(h, 0..<4)
            let later = h.clock.now.milliseconds + 1_000
            h.mock.script(token: PublishHarness.token(2), .badDeviceToken, times: nil)
            h.mock.script(token: PublishHarness.token(3), .unregistered(timestamp: later), times: nil)
            h.mock.script(token: PublishHarness.token(4), .tooManyRequests, times: nil)
            h.mock.script(token: PublishHarness.token(5), .internalServerError, times: nil)
            h.mock.script(token: PublishHarness.token(6), .reject(status: 413, reason: "PayloadTooLarge"), times: nil)
            fcm.script(token: MixedChannelTests.androidToken(1), .reject(.unregistered, retryAfter: nil), times: 1)
            let id = try await h.publish("news", #"{"message": "Hello"}"#)
            let status = try await h.waitFor(id, status: "published")
            #expect(status.platform("ios", "sent") == 5 && status.platform("android", "sent") == 3)

            let answer = try await h.client.call(.get, "/shop/k-admin/admin/stats")
            #expect(answer.status == .ok)
            guard case .array(let points)? = answer.body["points"] else { throw HarnessError("no points: \(answer.body)") }
            func point(_ provider: String) -> JSONValue? { points.first { $0["provider"] == .string(provider) } }
            let apns = try #require(point("apns"))
            #expect(apns["sent"] == .integer(5))
            #expect(
                apns["failed"]
                    == .object([
                        "total": .integer(5), "invalidToken": .integer(2), "throttled": .integer(1), "service": .integer(1),
                        "auth": .integer(0), "other": .integer(1),
                    ]))
            #expect(apns["tokensRemoved"] == .integer(1))
            let android = try #require(point("fcm"))
            #expect(android["sent"] == .integer(3) && android["failed"]?["invalidToken"] == .integer(1))
            #expect(android["tokensRemoved"] == .integer(1))
            #expect(answer.body["total"]?["sent"] == .integer(8) && answer.body["total"]?["failed"]?["total"] == .integer(6))
            // The totals are the message's.
            #expect(answer.body["total"]?["sent"] == status.delivery("sent").map(JSONValue.integer))
            #expect(answer.body["total"]?["failed"]?["total"] == status.delivery("failed").map(JSONValue.integer))
            #expect(points.allSatisfy { $0["at"] == .integer(StatsStep.minute.bucket(h.clock.now).milliseconds) })

            // Prometheus counts the same final results.
            let exposition = h.exporter.exposition()
            for (result, count) in [("sent", 5), ("invalid_token", 2), ("throttled", 1), ("service", 1), ("other", 1)] {
                #expect(exposition.contains(#"herald_deliveries_total{provider="apns",result="\#(result)"} \#(count)"#), "\(result)")
            }
            #expect(exposition.contains(#"herald_deliveries_total{provider="fcm",result="invalid_token"} 1"#))
            // By hour, the same.
            let hours = try await h.client.call(.get, "/shop/k-admin/admin/stats?step=hour")
            #expect(hours.body["total"] == answer.body["total"])
            #expect(hours.body["step"] == .string("hour"))
            // Another app's admin sees nothing of it; a server key may not look.
            #expect(try await h.client.call(.get, "/blog/b-admin/admin/stats").body["points"] == .array([]))
            let server = try await h.client.call(.get, "/shop/k-server/admin/stats")
            #expect(server.status == .forbidden && server.body["code"] == .integer(5007))
        }
    }

    @Test func badWindowsAreRefusedNamingTheParameter() async throws {
        try await PublishHarness.with { h in
            for (query, parameter) in [
                ("step=day", "step"), ("from=abc", "from"), ("to=-5", "to"), ("from=2000&to=1000", "from"),
                ("from=0&to=1800000000000&step=minute", "from"),
            ] {
                let answer = try await h.client.call(.get, "/shop/k-admin/admin/stats?\(query)")
                #expect(answer.status == .badRequest, "\(query)")
                #expect(answer.body["code"] == .integer(8008), "\(query)")
                guard case .string(let message)? = answer.body["message"] else { throw HarnessError("no message: \(answer.body)") }
                #expect(message.contains("'\(parameter)'"), "\(query): \(message)")
            }
            let window = try await h.client.call(.get, "/shop/k-admin/admin/stats?from=1800000030000&to=1800000090000")
            #expect(window.status == .ok)
            #expect(window.body["from"] == .integer(1_800_000_000_000), "rounded down to its minute")
            #expect(window.body["to"] == .integer(1_800_000_090_000))
            #expect(window.body["points"] == .array([]))
        }
    }
}
