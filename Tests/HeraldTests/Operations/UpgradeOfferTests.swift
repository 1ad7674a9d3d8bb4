import Foundation
import HeraldTestSupport
import Testing

/// A plain-HTTP request that offers an upgrade Herald does not take (`Upgrade: h2c`, as curl `--http2`
/// and Java's `HttpClient` send on every http:// request) is answered over HTTP/1.1 and the connection
/// stays open; before, the first such request on a connection was swallowed and the connection closed
/// with no answer, and the request after one hung. Over real sockets, against the `herald` binary (a
/// test that blocks a thread on a socket must not share the 2-thread pool with the server it waits on).
@Suite(.serialized, .timeLimit(.minutes(2))) struct UpgradeOfferTests {
    static let register = "/shop/k-client/messaging/registrations"

    /// Runs `body` with the port of a `herald serve` of its own (app `shop`, key `k-client`).
    static func withHerald(_ body: (Int) async throws -> Void) async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let config = try scratch.write("herald.json", HostileHTTPTests.configuration)
        let server = try HeraldProcess(["serve", "--config", config, "--port", "0"], directory: scratch.url)
        let port = try #require(try await server.waitUntilListening().port)
        try await body(port)
        server.process.terminate()
        _ = try await server.waitForExit()
    }

    /// curl's own `--http2` on http://: a GET, then a POST with a body, then two GETs on one connection.
    @Test func curlOfferingH2CIsAnsweredOverHTTP1() async throws {
        try await Self.withHerald { port in
            let base = "http://127.0.0.1:\(port)"
            let health = try Self.curl([base + "/health"])
            #expect(health.map(\.status) == [200], "\(health)")
            #expect(health.first?.version == "1.1")
            #expect(health.first?.body == #"{"status":"ok"}"#, "\(health)")

            let registered = try Self.curl([
                "-X", "POST", "-H", "Content-Type: application/json",
                "--data-binary", #"{"deviceToken": "A1B2C3D4", "deviceId": "h2c-phone", "os": "IOS", "channels": ["news"]}"#,
                base + Self.register,
            ])
            #expect(registered.map(\.status) == [200], "\(registered)")
            #expect(registered.first?.body.contains(#""registrationId":"#) == true, "\(registered)")
            let device = try await HTTP.send("GET", URL(string: base + Self.register + "/h2c-phone")!)
            #expect(device.body.contains(#""deviceToken":"a1b2c3d4""#), "the body reached the route: \(device.body)")

            // Two URLs in one curl: the second goes on the first's connection (no new connect).
            let twice = try Self.curl([base + "/health", base + "/health"])
            #expect(twice.map(\.status) == [200, 200], "\(twice)")
            #expect(twice.map(\.connects) == [1, 0], "the connection was kept: \(twice)")
        }
    }

    /// The exact head Java's `java.net.http.HttpClient` sends for a POST on an http:// URL (HTTP/2 is its
    /// default version), then a second request on the same connection.
    @Test func javaHttpClientsUpgradeHeadersGetAnHTTP1AnswerAndKeepTheConnection() async throws {
        try await Self.withHerald { port in
            let body = #"{"deviceToken": "B1B2C3D4", "deviceId": "java-server", "os": "IOS", "channels": ["news"]}"#
            let connection = try RawConnection(port: port)
            let java =
                "POST \(Self.register) HTTP/1.1\r\n"
                + "Connection: Upgrade, HTTP2-Settings\r\n"
                + "Content-Length: \(body.utf8.count)\r\n"
                + "Host: 127.0.0.1:\(port)\r\n"
                + "HTTP2-Settings: AAEAAEAAAAIAAAABAAMAAABkAAQBAAAAAAUAAEAA\r\n"
                + "Upgrade: h2c\r\n"
                + "User-Agent: Java-http-client/21.0.5\r\n"
                + "Content-Type: application/json\r\n\r\n" + body
            #expect(connection.send(Array(java.utf8)))
            let first = connection.readResponses()
            let answer = try #require(first.responses.first, "no answer: \(first)")
            #expect(answer.status == 200, "\(answer)")
            #expect(answer.text.contains(#""registrationId":"#), "\(answer)")
            #expect(answer.headers["upgrade"] == nil && answer.headers["connection"]?.lowercased() != "close", "\(answer)")
            #expect(!first.closed)

            #expect(connection.send(Array("GET \(Self.register)/java-server HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8)))
            let second = connection.readResponses()
            #expect(second.responses.first?.status == 200, "\(second)")
            #expect(second.responses.first?.text.contains(#""deviceToken":"b1b2c3d4""#) == true, "\(second)")
        }
    }

    /// Requests sent together after offers (curl and Java wait for each answer; a pipelining client
    /// does not): each is answered in order, a HEAD among them without a body.
    @Test func requestsPipelinedAfterAnOfferAreAllAnswered() async throws {
        try await Self.withHerald { port in
            let connection = try RawConnection(port: port)
            let offer = "Connection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\nHTTP2-Settings: AAMAAABkAAQCAAAAAAIAAAAA\r\n"
            let body = #"{"deviceToken": "C1C2C3D4", "deviceId": "pipelined", "os": "IOS", "channels": ["news"]}"#
            let requests =
                "GET /health HTTP/1.1\r\nHost: x\r\n\(offer)\r\n"
                + "POST \(Self.register) HTTP/1.1\r\nHost: x\r\n\(offer)Content-Type: application/json\r\n"
                + "Content-Length: \(body.utf8.count)\r\n\r\n\(body)"
                + "HEAD /health HTTP/1.1\r\nHost: x\r\n\r\n"
                + "GET /health HTTP/1.1\r\nHost: x\r\n\(offer)\r\n"
            #expect(connection.send(Array(requests.utf8)))
            var raw: [UInt8] = []
            let deadline = ContinuousClock.now + .seconds(10)
            var text = ""
            while ContinuousClock.now < deadline {
                #expect(connection.readAvailable(into: &raw), "the connection stays open")
                text = String(decoding: raw, as: UTF8.self)
                if text.components(separatedBy: "HTTP/1.1 ").count == 5, text.hasSuffix(#"{"status":"ok"}"#) { break }
                try await Task.sleep(for: .milliseconds(10))
            }
            let answers = text.components(separatedBy: "HTTP/1.1 ").dropFirst()
            #expect(answers.map { $0.prefix(3) } == ["200", "200", "405", "200"], "\(text)")
            let head = answers.dropFirst(2).first ?? ""
            #expect(head.hasSuffix("\r\n\r\n"), "the HEAD's answer has no body: \(text)")
            #expect(answers.dropFirst().first?.contains(#""registrationId":"#) == true, "\(text)")
        }
    }

    /// Other offers nothing here takes, each the first request of its connection: answered, not dropped.
    @Test(arguments: [
        "Connection: Upgrade\r\nUpgrade: foo/2\r\n",
        "Connection: upgrade\r\nUpgrade: H2C\r\n",
        // A WebSocket offer NIO's upgrader would refuse before asking the route (no key, another version).
        "Connection: Upgrade\r\nUpgrade: websocket\r\n",
        "Connection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 8\r\n",
    ])
    func anUnusableOfferIsAnsweredAsHTTP1(_ offer: String) async throws {
        try await Self.withHerald { port in
            let connection = try RawConnection(port: port)
            #expect(connection.send(Array("GET /health HTTP/1.1\r\nHost: x\r\n\(offer)\r\n".utf8)))
            let answers = connection.readResponses()
            #expect(answers.responses.map(\.status) == [200], "\(offer): \(answers)")
            #expect(!answers.closed, "\(offer)")
        }
    }

    /// A WebSocket handshake is still upgraded, also when it names h2c first.
    @Test func aWebSocketHandshakeStillUpgrades() async throws {
        try await Self.withHerald { port in
            let subscribed = try await HTTP.send(
                "POST", URL(string: "http://127.0.0.1:\(port)/shop/k-client/messaging/chat/subscribe")!, json: "{}")
            let answer = try JSONSerialization.jsonObject(with: Data(subscribed.body.utf8)) as? [String: Any]
            let id = try #require(answer?["subscriptionId"] as? String, "\(subscribed.body)")
            let connection = try RawConnection(port: port)
            let handshake =
                "GET /shop/k-client/messaging/chat/\(id)/stream HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                + "Connection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c, websocket\r\nHTTP2-Settings: AAMAAABkAAQCAAAAAAIAAAAA\r\n"
                + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
            #expect(connection.send(Array(handshake.utf8)))
            var raw: [UInt8] = []
            let deadline = ContinuousClock.now + .seconds(5)
            var head: (status: Int, headers: [String: String])?
            while head == nil, ContinuousClock.now < deadline {
                _ = connection.readAvailable(into: &raw)
                head = RawConnection.takeHead(&raw)
                if head == nil { try await Task.sleep(for: .milliseconds(10)) }
            }
            #expect(head?.status == 101, "\(String(describing: head))")
            #expect(head?.headers["sec-websocket-accept"] == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=", "\(String(describing: head))")
        }
    }

    struct CurlAnswer: CustomStringConvertible {
        var status: Int
        var version: String
        /// New connections curl made for this transfer (0: it reused one).
        var connects: Int
        var body: String
        var description: String { "\(status) HTTP/\(version) connects=\(connects) \(body.prefix(300))" }
    }

    static let marker = "\n@@herald-curl@@ "

    /// Runs the curl tool with `--http2` (on http:// it sends `Upgrade: h2c`); one answer per URL.
    static func curl(_ arguments: [String]) throws -> [CurlAnswer] {
        let run = try ChildProcess.run(
            "/usr/bin/env",
            ["curl", "-sS", "-m", "10", "--http2", "--noproxy", "*", "-w", marker + "%{http_code} %{http_version} %{num_connects}\n"]
                + arguments)
        var answers: [CurlAnswer] = []
        var rest = Substring(run.stdout)
        while let range = rest.range(of: marker) {
            let body = String(rest[..<range.lowerBound])
            let line = rest[range.upperBound...].prefix { $0 != "\n" }
            let fields = line.split(separator: " ")
            answers.append(
                CurlAnswer(
                    status: Int(fields.first ?? "") ?? 0, version: fields.count > 1 ? String(fields[1]) : "",
                    connects: fields.count > 2 ? Int(fields[2]) ?? -1 : -1, body: body))
            rest = rest[range.upperBound...].drop { $0 != "\n" }.dropFirst()
        }
        if answers.isEmpty || run.code != 0 { Issue.record("curl exited \(run.code): \(run.stdout) \(run.stderr)") }
        return answers
    }
}
