import APNsMock
import Foundation
import HeraldCore
import Testing

/// Publish → dispatcher → APNs client → mock APNs over TLS, with a real SQLite file.
@Suite struct PublishFanOutTests {
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
