import Foundation
import Herald
import HeraldCore
import HeraldTestSupport
import Hummingbird
import HummingbirdTesting
import Testing

/// A subscription's live stream as a WebSocket on the stream's path (issue 24), over a real socket with a
/// client written from RFC 6455: one text frame per message, the selector, resumption from `lastEventId`,
/// ping frames, refusals as a Backendless error and a 4xxx close code, the limit and the metrics.
@Suite struct PubSubSocketTests {
    static func json(_ text: String) throws -> JSONValue { try JSONValue.parse(Array(text.utf8)) }

    @Test(arguments: PublishHarness.Database.available)
    func aSocketGetsEachMessageItsSelectorTakesAndResumesFromAnId(_ database: PublishHarness.Database) async throws {
        try await TestHerald.with(database: database, setup: .live) { h in
            let port = try #require(h.client.port)
            let id = try await PubSubAPITests.subscribe(h, "chat", #"{"selector": "room = 'a'"}"#)
            let socket = try WebSocketTestClient(port: port, path: "/shop/k-client/messaging/chat/\(id)/stream")
            #expect(try await socket.head() == 101)
            #expect(socket.headers["upgrade"]?.lowercased() == "websocket")
            #expect(socket.headers["sec-websocket-accept"]?.isEmpty == false)
            let first = try await PubSubAPITests.publish(
                h, "chat", #"{"message": "one", "headers": {"room": "a", "n": 1}, "publishPolicy": "PUBSUB"}"#)
            _ = try await PubSubAPITests.publish(
                h, "chat", #"{"message": "not mine", "headers": {"room": "b"}, "publishPolicy": "PUBSUB"}"#)
            _ = try await PubSubAPITests.publish(h, "chat", #"{"message": "push", "headers": {"room": "a"}, "publishPolicy": "PUSH"}"#)
            _ = try await PubSubAPITests.publish(
                h, "chat", #"{"message": {"text": "two"}, "headers": {"room": "a"}, "publishPolicy": "PUBSUB"}"#)
            let messages = try await socket.messages(2).map(Self.json)
            #expect(messages.map { $0["data"] } == [.string("one"), .object(["text": .string("two")])])
            #expect(messages.first?["messageId"] == .string(first))
            #expect(messages.first?["headers"] == .object(["room": .string("a"), "n": .string("1")]))
            #expect(messages.first?["publishedAt"]?.scalarText.flatMap { Int64($0) } != nil)
            let ids = messages.compactMap { $0["id"]?.scalarText.flatMap { Int64($0) } }
            #expect(ids.count == 2 && ids[0] < ids[1], "each message's id is its feed position: \(messages)")
            #expect(try await socket.anyMessage(within: .milliseconds(300)) == false, "nothing else")
            #expect(socket.violations.isEmpty, "\(socket.violations)")

            // The same message reads alike on both forms of the stream.
            let sse = try SSEClient(port: port, path: "/shop/k-client/messaging/chat/\(id)/stream", lastEventId: "0")
            let events = try await sse.events(2)
            #expect(try events.map { try JSONValue.parse(Array($0.data.utf8)) } == messages)

            // Resuming from the first message's id gives the second again, and what came since.
            _ = try await PubSubAPITests.publish(h, "chat", #"{"message": "three", "headers": {"room": "a"}, "publishPolicy": "PUBSUB"}"#)
            let resumed = try WebSocketTestClient(port: port, path: "/shop/k-client/messaging/chat/\(id)/stream?lastEventId=\(ids[0])")
            #expect(try await resumed.head() == 101)
            let again = try await resumed.messages(2).map(Self.json)
            #expect(again.map { $0["data"] } == [.object(["text": .string("two")]), .string("three")])
        }
    }

    @Test func refusalsAreAnErrorMessageAndACloseCodeAfterTheUpgrade() async throws {
        var settings = PubSubConfiguration()
        settings.maxStreams = 1
        try await TestHerald.with(file: false, setup: .live, pubsub: settings) { h in
            let port = try #require(h.client.port)
            let id = try await PubSubAPITests.subscribe(h, "news")
            let cases: [(path: String, code: Int64, close: Int)] = [
                ("/shop/nokey/messaging/news/\(id)/stream", 2002, 4401),
                ("/nowhere/k-client/messaging/news/\(id)/stream", 2002, 4401),
                ("/shop/k-client/messaging/news/nope/stream", 5020, 4404),
                ("/shop/k-client/messaging/other/\(id)/stream", 5020, 4404),
                ("/shop/k-client/messaging/news/\(id)/stream?lastEventId=x", 8008, 4400),
            ]
            for refusal in cases {
                let socket = try WebSocketTestClient(port: port, path: refusal.path)
                #expect(try await socket.head() == 101, "\(refusal.path)")
                let close = try await socket.closeFrame()
                #expect(close.code == refusal.close, "\(refusal.path): \(close)")
                #expect(close.reason == String(refusal.code))
                let error = try Self.json(try #require(socket.texts.first, "\(refusal.path)"))
                #expect(error["code"] == .integer(refusal.code), "\(refusal.path): \(error)")
                #expect(error["message"]?.scalarText?.isEmpty == false)
            }
            // The one stream this instance allows, then a second is refused as busy.
            let open = try WebSocketTestClient(port: port, path: "/shop/k-client/messaging/news/\(id)/stream")
            #expect(try await open.head() == 101)
            #expect(try await open.anyMessage(within: .milliseconds(200)) == false)
            let busy = try WebSocketTestClient(port: port, path: "/shop/k-client/messaging/news/\(id)/stream")
            #expect(try await busy.closeFrame().code == 4503)
            // An upgrade on any other path is not a WebSocket.
            let elsewhere = try WebSocketTestClient(port: port, path: "/shop/k-client/messaging/news")
            #expect(try await elsewhere.head() == 400)
        }
    }

    @Test func pingsKeepAnIdleSocketOpenAndAClientCloseEndsTheStream() async throws {
        var settings = PubSubConfiguration()
        settings.heartbeatSeconds = 1
        try await TestHerald.with(file: false, setup: .live, pubsub: settings) { h in
            let port = try #require(h.client.port)
            let id = try await PubSubAPITests.subscribe(h, "news")
            let socket = try WebSocketTestClient(port: port, path: "/shop/k-client/messaging/news/\(id)/stream")
            #expect(try await socket.head() == 101)
            try await socket.wait(within: .seconds(6), "two pings") { $0.pings >= 2 }
            #expect(!socket.closed)
            #expect(try await Self.streams(h) == 1)

            // The client closes: the server answers with its own close, and the stream is gone.
            _ = try await PubSubAPITests.publish(h, "news", #"{"message": "m", "publishPolicy": "PUBSUB"}"#)
            #expect(try await socket.messages(1).count == 1)
            socket.sendClose(code: 1000)
            #expect(try await socket.closeFrame().code == 1000)
            var open = 1
            let deadline = ContinuousClock.now + .seconds(10)
            while open != 0 && ContinuousClock.now < deadline {
                open = try await Self.streams(h)
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(open == 0)
            // What it was sent was recorded: a poll of the same subscription has nothing left.
            #expect(try await PubSubAPITests.poll(h, "news", id).isEmpty)
        }
    }

    @Test func aClientThatDoesNotAnswerPingsIsClosed() async throws {
        var settings = PubSubConfiguration()
        settings.heartbeatSeconds = 1
        try await TestHerald.with(file: false, setup: .live, pubsub: settings) { h in
            let port = try #require(h.client.port)
            let id = try await PubSubAPITests.subscribe(h, "news")
            let socket = try WebSocketTestClient(port: port, path: "/shop/k-client/messaging/news/\(id)/stream", answerPings: false)
            #expect(try await socket.head() == 101)
            #expect(try await socket.closeFrame(within: .seconds(8)).reason == "Ping timeout")
        }
    }

    /// A real process: on SIGTERM its sockets close (1000) and its SSE streams end, and it exits 0.
    @Test func aShutdownClosesSocketsAndEndsStreams() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let server = try HeraldProcess(["serve", "--port", "0"], directory: scratch.url)
        let base = try await server.waitUntilListening()
        let client = try #require(
            server.stdout.split(separator: "\n").compactMap { line -> String? in
                let parts = line.split(separator: " ")
                return parts.count == 2 && parts[0] == "client" ? String(parts[1]) : nil
            }.first)
        let subscribed = try await HTTP.send("POST", base.appendingPathComponent("demo/\(client)/messaging/news/subscribe"), json: "{}")
        let id = try #require(try JSONValue.parse(Array(subscribed.body.utf8))["subscriptionId"].flatMap(\.scalarText))
        let port = try #require(base.port)
        let socket = try WebSocketTestClient(port: port, path: "/demo/\(client)/messaging/news/\(id)/stream")
        #expect(try await socket.head() == 101)
        let sse = try SSEClient(port: port, path: "/demo/\(client)/messaging/news/\(id)/stream")
        #expect(try await sse.head() == 200)
        server.process.terminate()
        #expect(try await socket.closeFrame().code == 1000)
        _ = try await sse.events(1, within: .seconds(10))
        #expect(sse.closed, "the SSE stream ended")
        #expect(try await server.waitForExit(timeout: .seconds(15)) == 0)
    }

    static func streams(_ h: TestHerald.Harness) async throws -> Int {
        let text = try await h.client.execute(uri: "/metrics", method: .get) { String(buffer: $0.body) }
        let line = text.split(separator: "\n").first { $0.hasPrefix("herald_pubsub_streams ") }
        return Int(Double(line?.split(separator: " ").last ?? "") ?? -1)
    }
}
