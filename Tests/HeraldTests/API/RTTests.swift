import Foundation
import Herald
import HeraldCore
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

/// Backendless RT end to end in the Swift suite, on each backend, as the SDKs' socket.io client speaks it
/// over long polling (Engine.IO v4): a message listener receives a REST publish once, refusals, and the
/// metrics. python-socketio runs the whole protocol against the binary (scripts/rt-check.sh).
@Suite struct RTTests {
    /// A polling RT client of the app `shop`.
    final class Poller {
        let h: TestHerald.Harness
        let sid: String
        /// Packets a poll brought that were not asked for yet, in order.
        var pending: [String] = []
        /// Every packet polls brought.
        var history: [String] = []

        init(h: TestHerald.Harness, sid: String) {
            self.h = h
            self.sid = sid
        }
        var path: String { "/shop/?EIO=4&transport=polling&sid=\(sid)" }

        static func open(_ h: TestHerald.Harness, key: String = "k-client", query: String = "") async throws -> Poller {
            let answer = try await h.client.execute(
                uri: "/shop/?EIO=4&transport=polling&apiKey=\(key)&clientId=C1&userToken=null\(query)", method: .get)
            let body = String(buffer: answer.body)
            #expect(answer.status == .ok, "\(body)")
            let sid = try #require(body.range(of: "\"sid\":\"").map { String(body[$0.upperBound...].prefix { $0 != "\"" }) })
            let poller = Poller(h: h, sid: sid)
            try await poller.send("0/shop,")
            return poller
        }

        func send(_ packets: String...) async throws { try await sendRaw(packets.map { "4" + $0 }) }

        /// Sends Engine.IO packets as they are (`4…` messages, `b…` binary ones).
        func sendRaw(_ packets: [String]) async throws {
            let answer = try await h.client.execute(uri: path, method: .post, body: ByteBuffer(string: packets.joined(separator: "\u{1e}")))
            #expect(String(buffer: answer.body) == "ok")
        }

        /// The next packet that starts with `prefix` (those before it are passed over), polling while none
        /// has come; nil after 10 polls.
        func next(_ prefix: String) async throws -> String? {
            for _ in 0..<10 {
                while !pending.isEmpty {
                    let packet = pending.removeFirst()
                    if packet.hasPrefix(prefix) { return packet }
                }
                let answer = try await h.client.execute(uri: path, method: .get)
                pending = String(buffer: answer.body).split(separator: "\u{1e}").map(String.init)
                history += pending
            }
            return nil
        }
    }

    @Test(arguments: PublishHarness.Database.available)
    func aListenerReceivesAPublishOnceAndIsCounted(_ database: PublishHarness.Database) async throws {
        try await TestHerald.with(database: database, setup: .live) { h in
            let info = try await h.client.call(.get, "/shop/k-client/info")
            #expect(info.status == .ok && info.body["rtURL"] != nil)
            let rt = try await Poller.open(h)
            #expect(try await rt.next("40/shop,{\"sid\":") != nil, "the namespace is connected")
            try await rt.send(
                #"2/shop,["SUB_ON",{"id":"c1","name":"PUB_SUB_CONNECT","options":{"channel":"chat"}}]"#,
                #"2/shop,["SUB_ON",{"id":"m1","name":"PUB_SUB_MESSAGES","options":{"selector":"room = 'a'","channel":"chat"}}]"#)
            #expect(try await rt.next("42/shop,[\"SUB_RES\"") == #"42/shop,["SUB_RES",{"id":"c1","data":"connected"}]"#)
            #expect(try await rt.next("42/shop,[\"SUB_READY\"") == #"42/shop,["SUB_READY",{"id":"m1"}]"#)
            _ = try await PubSubAPITests.publish(
                h, "chat", #"{"message": "not mine", "headers": {"room": "b"}, "publishPolicy": "PUBSUB"}"#)
            let id = try await PubSubAPITests.publish(h, "chat", #"{"message": {"x": 1}, "headers": {"room": "a", "n": 5}}"#)
            let delivery = try #require(try await rt.next("42/shop,[\"SUB_RES\""))
            let event = try JSONValue.parse(Array(delivery.dropFirst("42/shop,".count).utf8))
            guard case .array(let items) = event, items.count == 2, case .object(let result) = items[1],
                case .object(let data)? = result["data"]
            else {
                Issue.record("not a SUB_RES: \(delivery)")
                return
            }
            #expect(result["id"] == .string("m1"))
            #expect(data["messageId"] == .string(id))
            #expect(data["message"] == .object(["x": .integer(1)]))
            #expect(data["headers"] == .object(["room": .string("a"), "n": .string("5")]))
            #expect(data["publishAt"] == .integer(0) && data["subtopic"] == .null)

            let metrics = try await h.client.execute(uri: "/metrics", method: .get) { String(buffer: $0.body) }
            for line in [
                "herald_rt_connections 1.0", #"herald_rt_subscriptions{type="PUB_SUB_MESSAGES"} 1.0"#,
                #"herald_rt_subscriptions{type="PUB_SUB_CONNECT"} 1.0"#, #"herald_pubsub_messages_delivered_total{via="rt"} 1"#,
            ] {
                #expect(metrics.contains(line + "\n"), "\(line) in \(metrics.split(separator: "\n").filter { $0.contains("rt") })")
            }
            // The client closes: everything it had goes, and the reason is counted.
            _ = try await h.client.execute(uri: rt.path, method: .post, body: ByteBuffer(string: "1"))
            var after = ""
            for _ in 0..<50 {
                after = try await h.client.execute(uri: "/metrics", method: .get) { String(buffer: $0.body) }
                if after.contains("herald_rt_connections 0.0\n") { break }
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(after.contains("herald_rt_connections 0.0\n"))
            #expect(after.contains(#"herald_rt_subscriptions{type="PUB_SUB_MESSAGES"} 0.0"# + "\n"))
            #expect(after.contains(#"herald_rt_disconnects_total{reason="transport close"} 1"# + "\n"))
        }
    }

    @Test func wrongKeysUnknownAppsAndBadEventsAreRefused() async throws {
        try await TestHerald.with(file: false, setup: .live) { h in
            let wrongKey = try await Poller.open(h, key: "nope")
            let refusal = try #require(try await wrongKey.next("44/shop,"))
            #expect(refusal.contains("\"message\":"))

            let unknownApp = try await h.client.call(.get, "/nowhere/?EIO=4&transport=polling")
            #expect(unknownApp.body.code == 2002)
            let notEngineIO = try await h.client.call(.get, "/shop/")
            #expect(notEngineIO.status == .notFound)

            let rt = try await Poller.open(h)
            try await rt.send(
                #"2/shop,["SUB_ON",{"id":"x","name":"OBJECTS_CHANGES","options":{"channel":"chat"}}]"#,
                #"2/shop,["MET_REQ",{"id":"y","name":"RSO_GET","options":{}}]"#,
                #"2/shop,["SUB_ON",{"id":"z","name":"PUB_SUB_MESSAGES","options":{"channel":"chat","selector":"a >"}}]"#)
            let subscription = try #require(try await rt.next("42/shop,[\"SUB_RES\""))
            #expect(subscription.contains(#""code":404"#) && subscription.contains("not served by Herald"))
            let method = try #require(try await rt.next("42/shop,[\"MET_RES\""))
            #expect(method.contains(#""code":"404""#), "a method's code is digits in a string: \(method)")
            let selector = try #require(try await rt.next("42/shop,[\"SUB_RES\""))
            #expect(selector.contains(#""id":"z""#) && selector.contains("selector"))
        }
    }

    @Test func theChannelsPageShowsLiveSubscribersOfItsAppOnly() async throws {
        try await TestHerald.with(file: false, setup: .live) { h in
            let port = try #require(h.client.port)
            let rt = try await Poller.open(h)
            try await rt.send(
                #"2/shop,["SUB_ON",{"id":"c1","name":"PUB_SUB_CONNECT","options":{"channel":"lobby"}}]"#,
                #"2/shop,["SUB_ON",{"id":"m1","name":"PUB_SUB_MESSAGES","options":{"channel":"lobby"}}]"#,
                #"2/shop,["SUB_ON",{"id":"m2","name":"PUB_SUB_MESSAGES","options":{"channel":"lobby","selector":"a = 1"}}]"#,
                #"2/shop,["SUB_ON",{"id":"u1","name":"PUB_SUB_USERS","options":{"channel":"lobby"}}]"#)
            #expect(try await rt.next("42/shop,[\"SUB_READY\",{\"id\":\"m2\"") != nil)
            let id = try await PubSubAPITests.subscribe(h, "lobby")
            let stream = try SSEClient(port: port, path: "/shop/k-client/messaging/lobby/\(id)/stream")
            #expect(try await stream.head() == 200)

            let shop = try await ConsoleTests.login(h.client)
            let page = try await ConsoleTests.send(h.client, .get, "/console/channels", cookie: shop).body
            #expect(page.contains("<h2>Live subscribers</h2>"))
            let row = try #require(page.range(of: "<tr><td>lobby</td>").map { String(page[$0.lowerBound...].prefix(400)) })
            let numbers = row.components(separatedBy: "<td class=\"number\">").dropFirst().map { $0.prefix { $0 != "<" } }
            #expect(numbers.prefix(4) == ["2", "1", "1", "1"], "RT listeners, members, other listeners, streams: \(row)")

            let blog = try await ConsoleTests.login(h.client, app: "blog", key: "b-admin")
            let other = try await ConsoleTests.send(h.client, .get, "/console/channels", cookie: blog).body
            #expect(!other.contains("lobby") && other.contains("No live subscribers on this instance"))
        }
    }
}
