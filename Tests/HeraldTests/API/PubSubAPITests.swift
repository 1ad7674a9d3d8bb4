import APNsMock
import Foundation
import Herald
import HeraldCore
import HeraldStore
import Hummingbird
import HummingbirdTesting
import Testing

/// Publish-subscribe over HTTP (issue 24): subscribe, poll, selectors, expiry and limits, on both
/// backends. Messages are published through the real publish route and reach the feed through the
/// real store (the first occurrence with the publish, later ones when the dispatcher starts them).
@Suite struct PubSubAPITests {
    static let messaging = "/shop/k-client/messaging"

    static func subscribe(_ h: TestHerald.Harness, _ channel: String, _ body: String? = nil, key: String = "k-client") async throws
        -> String
    {
        let answer = try await h.client.call(.post, "/shop/\(key)/messaging/\(channel)/subscribe", json: body)
        #expect(answer.status == .ok, "subscribe: \(answer.body)")
        guard case .string(let id)? = answer.body["subscriptionId"] else { throw HarnessError("no subscriptionId in \(answer.body)") }
        return id
    }

    static func publish(_ h: TestHerald.Harness, _ channel: String, _ body: String) async throws -> String {
        let answer = try await h.client.call(.post, "/shop/k-server/messaging/\(channel)", json: body)
        #expect(answer.status == .ok, "publish: \(answer.body)")
        guard case .string(let id)? = answer.body["messageId"] else { throw HarnessError("no messageId in \(answer.body)") }
        return id
    }

    static func poll(_ h: TestHerald.Harness, _ channel: String, _ id: String) async throws -> [JSONValue] {
        let answer = try await h.client.call(.get, "\(messaging)/\(channel)/\(id)")
        #expect(answer.status == .ok, "poll: \(answer.body)")
        guard case .array(let messages)? = answer.body["messages"] else { throw HarnessError("no messages array in \(answer.body)") }
        return messages
    }

    @Test(arguments: PublishHarness.Database.available)
    func aSubscriberPollsEachMessageOnceWithItsFields(_ database: PublishHarness.Database) async throws {
        try await TestHerald.with(database: database) { h in
            _ = try await Self.publish(h, "chat", #"{"message": "before", "publishPolicy": "PUBSUB"}"#)
            let id = try await Self.subscribe(h, "chat", #"{"subscriberId": "ana"}"#)
            #expect(try await Self.poll(h, "chat", id).isEmpty, "a message published before the subscription is not its")

            let first = try await Self.publish(
                h, "chat",
                #"{"message": {"text": "hi", "n": 1}, "publisherId": "bob", "headers": {"city": "Tokyo", "n": 3}, "publishPolicy": "PUBSUB"}"#
            )
            _ = try await Self.publish(h, "chat", #"{"message": "push only", "publishPolicy": "PUSH"}"#)
            let both = try await Self.publish(h, "chat", #"{"message": "both"}"#)
            _ = try await Self.publish(h, "other", #"{"message": "elsewhere", "publishPolicy": "PUBSUB"}"#)

            let messages = try await Self.poll(h, "chat", id)
            #expect(messages.count == 2, "\(messages)")
            #expect(messages.first?["messageId"] == .string(first))
            #expect(messages.first?["data"] == .object(["text": .string("hi"), "n": .integer(1)]))
            #expect(messages.first?["publisherId"] == .string("bob"))
            #expect(messages.first?["headers"] == .object(["city": .string("Tokyo"), "n": .string("3")]))
            #expect(messages.first?["publishedAt"] == .integer(TestHerald.t0.milliseconds))
            #expect(messages.first?["timestamp"] == .integer(TestHerald.t0.milliseconds))
            #expect(messages.last?["messageId"] == .string(both) && messages.last?["data"] == .string("both"))
            #expect(messages.last?["publisherId"] == .null)
            #expect(try await Self.poll(h, "chat", id).isEmpty, "each message once")

            // Any key of the app may subscribe and poll; another app's key finds nothing.
            let server = try await Self.subscribe(h, "chat", nil, key: "k-server")
            _ = try await Self.publish(h, "chat", #"{"message": "again", "publishPolicy": "BOTH"}"#)
            #expect(try await Self.poll(h, "chat", server).count == 1)
            let otherApp = try await h.client.call(.get, "/blog/b-admin/messaging/chat/\(id)")
            #expect(otherApp.status == .notFound && otherApp.body.code == 5020)
            let otherChannel = try await h.client.call(.get, "\(Self.messaging)/other/\(id)")
            #expect(otherChannel.status == .notFound && otherChannel.body.code == 5020)
            let unknown = try await h.client.call(.get, "\(Self.messaging)/chat/nope")
            #expect(unknown.status == .notFound && unknown.body.code == 5020)
            let wrongKey = try await h.client.call(.get, "/shop/wrong/messaging/chat/\(id)")
            #expect(wrongKey.status == .unauthorized && wrongKey.body.code == 2002)
        }
    }

    @Test(arguments: PublishHarness.Database.available)
    func aSelectorFiltersOnHeaders(_ database: PublishHarness.Database) async throws {
        try await TestHerald.with(database: database) { h in
            let id = try await Self.subscribe(h, "weather", #"{"selector": "city = 'Tokyo' AND (level > 3 OR urgent = 'true')"}"#)
            for (city, level, urgent) in [("Tokyo", 5, false), ("Tokyo", 1, false), ("Tokyo", 1, true), ("Paris", 9, true)] {
                _ = try await Self.publish(
                    h, "weather",
                    #"{"message": "\#(city) \#(level)", "publishPolicy": "PUBSUB", "headers": {"city": "\#(city)", "level": \#(level), "urgent": \#(urgent)}}"#
                )
            }
            _ = try await Self.publish(h, "weather", #"{"message": "no headers", "publishPolicy": "PUBSUB"}"#)
            let messages = try await Self.poll(h, "weather", id)
            #expect(messages.map { $0["data"] } == [.string("Tokyo 5"), .string("Tokyo 1")], "\(messages)")
            #expect(try await Self.poll(h, "weather", id).isEmpty, "the ones it did not take are passed over too")
        }
    }

    @Test(arguments: [
        ("city = ", 8), ("city = 'Tokyo", 8), ("(a = 1", 7), ("a LIKE 5", 8), ("a = 1 AND", 10),
    ])
    func aBadSelectorIsRefusedAtSubscribeNamingThePosition(_ selector: String, _ position: Int) async throws {
        try await TestHerald.with(file: false) { h in
            let answer = try await h.client.call(.post, "\(Self.messaging)/news/subscribe", json: #"{"selector": "\#(selector)"}"#)
            #expect(answer.status == .badRequest && answer.body.code == 8008, "\(answer.body)")
            guard case .string(let message)? = answer.body["message"] else { return }
            #expect(message.contains("selector") && message.contains("position \(position)"), "\(selector): \(message)")
        }
    }

    @Test func badBodiesAndNamesAreRefused() async throws {
        try await TestHerald.with(file: false) { h in
            let cases: [(String, String?, Int64)] = [
                ("bad name!", nil, 5044), ("news", "[1]", 8008), ("news", #"{"selector": 5}"#, 8008),
                ("news", #"{"subscriberId": 5}"#, 8008), ("news", "{", 8002),
            ]
            for (channel, body, code) in cases {
                let path = "\(Self.messaging)/\(channel.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? channel)/subscribe"
                let answer = try await h.client.call(.post, path, json: body)
                #expect(answer.body.code == code, "\(channel) \(body ?? "-"): \(answer.body)")
            }
            #expect(try await h.client.call(.post, "\(Self.messaging)/news/subscrib", json: "{}").status == .notFound)
        }
    }

    @Test(arguments: PublishHarness.Database.available)
    func subscriptionsExpireWhenIdleAndMessagesAfterTheRetention(_ database: PublishHarness.Database) async throws {
        var settings = PubSubConfiguration()
        settings.retentionSeconds = 60
        settings.subscriptionIdleSeconds = 120
        try await TestHerald.with(database: database, pubsub: settings) { h in
            let id = try await Self.subscribe(h, "news")
            _ = try await Self.publish(h, "news", #"{"message": "old", "publishPolicy": "PUBSUB"}"#)
            h.clock.advance(milliseconds: 61_000)
            _ = try await Self.publish(h, "news", #"{"message": "new", "publishPolicy": "PUBSUB"}"#)
            #expect(try await Self.poll(h, "news", id).map { $0["data"] } == [.string("new")], "past the retention: gone")
            h.clock.advance(milliseconds: 119_000)
            #expect(try await Self.poll(h, "news", id).isEmpty, "polled within its idle time: still there")
            h.clock.advance(milliseconds: 121_000)
            let expired = try await h.client.call(.get, "\(Self.messaging)/news/\(id)")
            #expect(expired.status == .notFound && expired.body.code == 5020)
        }
    }

    @Test func anAppHasAtMostItsSubscriptions() async throws {
        var settings = PubSubConfiguration()
        settings.maxSubscriptionsPerApp = 3
        settings.subscriptionIdleSeconds = 60
        try await TestHerald.with(file: false, pubsub: settings) { h in
            for _ in 0..<3 { _ = try await Self.subscribe(h, "news") }
            let over = try await h.client.call(.post, "\(Self.messaging)/news/subscribe")
            #expect(over.status == .tooManyRequests && over.body.code == 5008, "\(over.body)")
            // Expired ones no longer count.
            h.clock.advance(milliseconds: 61_000)
            #expect(try await h.client.call(.post, "\(Self.messaging)/news/subscribe").status == .ok)
        }
    }
}

/// Scheduled and repeating messages reach subscribers occurrence by occurrence, as the dispatcher
/// starts them (the claim appends them to the feed).
@Suite struct PubSubScheduleTests {
    @Test(arguments: PublishHarness.Database.available)
    func eachOccurrenceReachesTheSubscribersWhenItStarts(_ database: PublishHarness.Database) async throws {
        try await PublishHarness.with(database: database) { h in
            let subscribed = try await h.client.call(.post, "/shop/k-client/messaging/news/subscribe")
            guard case .string(let id)? = subscribed.body["subscriptionId"] else { throw HarnessError("\(subscribed.body)") }
            @Sendable func poll() async throws -> [JSONValue] {
                let answer = try await h.client.call(.get, "/shop/k-client/messaging/news/\(id)")
                guard case .array(let messages)? = answer.body["messages"] else { throw HarnessError("\(answer.body)") }
                return messages
            }
            let at = TestHerald.t0.milliseconds + 60_000
            let message = try await h.publish(
                "news",
                #"{"message": "tick", "publishPolicy": "PUBSUB", "publishAt": \#(at), "repeatEvery": 60, "repeatExpiresAt": \#(at + 60_000)}"#
            )
            try await Task.sleep(for: .milliseconds(200))
            #expect(try await poll().isEmpty, "not before its time")
            for occurrence in 1...2 {
                h.clock.advance(milliseconds: 60_000)
                let deadline = ContinuousClock.now + .seconds(10)
                var messages: [JSONValue] = []
                while messages.isEmpty, ContinuousClock.now < deadline {
                    messages = try await poll()
                    if messages.isEmpty { try await Task.sleep(for: .milliseconds(20)) }
                }
                #expect(messages.count == 1, "occurrence \(occurrence): \(messages)")
                #expect(messages.first?["messageId"] == .string(message) && messages.first?["data"] == .string("tick"))
                if occurrence == 1 {
                    // The occurrence ends before the clock moves on: an occurrence that comes due while the
                    // one before is still being sent is skipped (docs/publishing.md).
                    try await h.waitFor(message, "the second occurrence scheduled") {
                        $0["occurrences"] == .integer(1) && $0["nextOccurrenceAt"] == .integer(at + 60_000)
                    }
                }
            }
            try await h.waitFor(message, status: "published")
            #expect(try await poll().isEmpty, "two occurrences, each once")
        }
    }

    @Test(arguments: PublishHarness.Database.available)
    func aBothMessageReachesPushDevicesAPollerAndAStreamOnceEach(_ database: PublishHarness.Database) async throws {
        try await PublishHarness.with(database: database, setup: .live) { h in
            try await h.registerDevices(0..<5)
            let polled = try await h.client.call(.post, "/shop/k-client/messaging/news/subscribe")
            let streamed = try await h.client.call(.post, "/shop/k-client/messaging/news/subscribe")
            guard case .string(let pollId)? = polled.body["subscriptionId"], case .string(let streamId)? = streamed.body["subscriptionId"]
            else { throw HarnessError("\(polled.body) \(streamed.body)") }
            let stream = try SSEClient(port: try #require(h.client.port), path: "/shop/k-client/messaging/news/\(streamId)/stream")
            #expect(try await stream.head() == 200)
            let id = try await h.publish("news", #"{"message": "both ways", "publishPolicy": "BOTH"}"#)
            let status = try await h.waitFor(id, status: "published")
            #expect(status.delivery("sent") == 5)
            #expect(h.mock.notifications().count == 5, "each device once")
            let events = try await stream.events(1)
            #expect(events.count == 1 && events.first?.data.contains(id) == true)
            let answer = try await h.client.call(.get, "/shop/k-client/messaging/news/\(pollId)")
            #expect(answer.body["messages"]?[0]?["messageId"] == .string(id))
            #expect(answer.body["messages"]?[1] == nil, "once")
            #expect(try await stream.anyEvent(within: .milliseconds(300)) == false, "once")
        }
    }
}
