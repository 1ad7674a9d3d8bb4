import APNsMock
import Foundation
import HeraldCore
import HeraldStore
import Testing

/// Publish → dispatcher → APNs client → mock APNs over TLS, with a real SQLite file.
@Suite struct PublishFanOutTests {
    /// A publish due now is answered once its message is stored running with its first slice leased to the
    /// instance that took it, which starts sending without a claim in between (`Dispatcher.insertAndSend`).
    @Test(arguments: PublishHarness.Database.available)
    func aPublishIsRunningWhenAnsweredAndItsInstanceSendsIt(_ database: PublishHarness.Database) async throws {
        try await PublishHarness.with(database: database) { h in
            try await h.registerDevices(0..<20)
            // A first message, sent: the dispatcher is running and idle (no claim under way, which would send
            // the next publish the way of a wake), as it is between publishes.
            _ = try await h.waitFor(try await h.publish("news", #"{"message": "first"}"#), status: "published")
            // Slow answers keep the fan-out running while the message is read.
            h.mock.setFaults(APNsMockFaults(latencyMilliseconds: 300))
            let id = try await h.publish("news", #"{"message": "Hi"}"#)
            let stored = try #require(try await h.messages.message(app: "shop", id: id))
            // Through a wake and a claim it is still `scheduled` here, until the claim's transaction commits.
            #expect(stored.status == .running, "its occurrence started in the publish's own transaction")
            let status = try await h.waitFor(id, status: "published")
            #expect(status.delivery("sent") == 20 && status.occurrences == 1)
            #expect(h.mock.notifications().filter { $0.payload.contains("Hi") }.count == 20)
        }
    }

    @Test func everyDeviceOfTheChannelGetsTheMappedNotification() async throws {
        try await PublishHarness.with { h in
            try await h.registerDevices(0..<120)
            try await h.registerDevices(200..<210, channels: ["other"])
            let id = try await h.publish(
                "news",
                """
                {"message": "Hello", "headers": {"ios-alert-title": "Hi", "ios-badge": 3, "ios-sound": "default",
                 "orderId": "42", "apns-collapse-id": "c1"}}
                """)
            let status = try await h.waitFor(id, status: "published")
            #expect(status.delivery("targeted") == 120)
            #expect(status.delivery("sent") == 120)
            #expect(status.delivery("failed") == 0)
            #expect(status.delivery("pending") == 0)
            let received = h.mock.notifications()
            #expect(received.count == 120)
            #expect(Set(received.map(\.token)) == Set((0..<120).map(PublishHarness.token)))
            let payload = try JSONValue.parse(Array(try #require(received.first).payload.utf8))
            #expect(
                payload
                    == .object([
                        "aps": .object([
                            "alert": .object(["title": .string("Hi"), "body": .string("Hello")]),
                            "badge": .integer(3), "sound": .string("default"),
                        ]),
                        "orderId": .string("42"),
                    ]))
            let headers = try #require(received.first).headers
            #expect(headers["apns-topic"] == PublishHarness.topic)
            #expect(headers["apns-push-type"] == "alert")
            #expect(headers["apns-collapse-id"] == "c1")
        }
    }
}
