import Foundation
import Herald
import HeraldCore
import Hummingbird
import HummingbirdTesting
import Testing

/// A subscription's live stream as Server-Sent Events over a real socket (issue 24): messages as
/// they are published, the selector, heartbeats, resumption from `Last-Event-ID`, and the limit.
@Suite struct PubSubStreamTests {
    static func data(_ event: SSEClient.Event) throws -> JSONValue {
        try JSONValue.parse(Array(event.data.utf8))
    }

    @Test(arguments: PublishHarness.Database.available)
    func aStreamGetsEachMessageItsSelectorTakesAsItIsPublished(_ database: PublishHarness.Database) async throws {
        try await TestHerald.with(database: database, setup: .live) { h in
            let port = try #require(h.client.port)
            let id = try await PubSubAPITests.subscribe(h, "chat", #"{"selector": "room = 'a'"}"#)
            let stream = try SSEClient(port: port, path: "/shop/k-client/messaging/chat/\(id)/stream")
            #expect(try await stream.head() == 200)
            #expect(stream.headers["content-type"]?.hasPrefix("text/event-stream") == true)
            let first = try await PubSubAPITests.publish(
                h, "chat", #"{"message": "one", "headers": {"room": "a"}, "publishPolicy": "PUBSUB"}"#)
            _ = try await PubSubAPITests.publish(
                h, "chat", #"{"message": "not mine", "headers": {"room": "b"}, "publishPolicy": "PUBSUB"}"#)
            _ = try await PubSubAPITests.publish(h, "chat", #"{"message": "push", "headers": {"room": "a"}, "publishPolicy": "PUSH"}"#)
            _ = try await PubSubAPITests.publish(h, "chat", #"{"message": "two", "headers": {"room": "a"}}"#)
            let events = try await stream.events(2)
            #expect(events.count == 2)
            #expect(try events.map { try Self.data($0)["data"] } == [.string("one"), .string("two")])
            #expect(events.first?.event == "message")
            #expect(try events.first.map(Self.data)?["messageId"] == .string(first))
            #expect(events.allSatisfy { $0.id.flatMap { Int64($0) } != nil }, "each event's id is its feed position")
            #expect(try await stream.anyEvent(within: .milliseconds(300)) == false, "nothing else")

            // Resuming from the first event's id gives the second again, and what came since.
            _ = try await PubSubAPITests.publish(h, "chat", #"{"message": "three", "headers": {"room": "a"}, "publishPolicy": "PUBSUB"}"#)
            let resumed = try SSEClient(
                port: port, path: "/shop/k-client/messaging/chat/\(id)/stream", lastEventId: try #require(events.first?.id))
            let again = try await resumed.events(2)
            #expect(try again.map { try Self.data($0)["data"] } == [.string("two"), .string("three")])
        }
    }

    @Test func heartbeatsKeepAnIdleStreamOpenAndItsSubscriptionAlive() async throws {
        var settings = PubSubConfiguration()
        settings.heartbeatSeconds = 1
        try await TestHerald.with(file: false, setup: .live, pubsub: settings) { h in
            let port = try #require(h.client.port)
            let id = try await PubSubAPITests.subscribe(h, "news")
            let stream = try SSEClient(port: port, path: "/shop/k-client/messaging/news/\(id)/stream")
            #expect(try await stream.head() == 200)
            #expect(try await stream.waitForComments(2, within: .seconds(5)), "a comment each heartbeat")
            #expect(!stream.closed)
        }
    }

    @Test func unknownSubscriptionsBadResumptionAndTheStreamLimitAreRefused() async throws {
        var settings = PubSubConfiguration()
        settings.maxStreams = 1
        try await TestHerald.with(file: false, setup: .live, pubsub: settings) { h in
            let port = try #require(h.client.port)
            let unknown = try await h.client.call(.get, "/shop/k-client/messaging/news/nope/stream")
            #expect(unknown.status == .notFound && unknown.body.code == 5020)
            let id = try await PubSubAPITests.subscribe(h, "news")
            let badResume = try SSEClient(port: port, path: "/shop/k-client/messaging/news/\(id)/stream", lastEventId: "x")
            #expect(try await badResume.head() == 400)
            let wrongKey = try await h.client.call(.get, "/shop/nokey/messaging/news/\(id)/stream")
            #expect(wrongKey.status == .unauthorized)
            let open = try SSEClient(port: port, path: "/shop/k-client/messaging/news/\(id)/stream")
            #expect(try await open.head() == 200)
            let second = try await h.client.call(.get, "/shop/k-client/messaging/news/\(id)/stream")
            #expect(second.status == .serviceUnavailable && second.body.code == 503, "\(second.body)")
        }
    }

    @Test func subscriptionsStreamsAndDeliveriesAreCounted() async throws {
        try await TestHerald.with(file: false, setup: .live) { h in
            let port = try #require(h.client.port)
            let polled = try await PubSubAPITests.subscribe(h, "news")
            let streamed = try await PubSubAPITests.subscribe(h, "news")
            let stream = try SSEClient(port: port, path: "/shop/k-client/messaging/news/\(streamed)/stream")
            #expect(try await stream.head() == 200)
            _ = try await PubSubAPITests.publish(h, "news", #"{"message": "m", "publishPolicy": "PUBSUB"}"#)
            #expect(try await stream.events(1).count == 1)
            #expect(try await PubSubAPITests.poll(h, "news", polled).count == 1)
            let text = try await h.client.execute(uri: "/metrics", method: .get) { String(buffer: $0.body) }
            for line in [
                "herald_pubsub_subscriptions_created_total 2", #"herald_pubsub_messages_delivered_total{via="poll"} 1"#,
                #"herald_pubsub_messages_delivered_total{via="stream"} 1"#, "herald_pubsub_streams 1.0",
            ] {
                #expect(text.contains(line + "\n"), "\(line) in \(text.split(separator: "\n").filter { $0.contains("pubsub") })")
            }
        }
    }
}
