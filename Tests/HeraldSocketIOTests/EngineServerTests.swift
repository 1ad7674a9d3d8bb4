import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import Synchronization
import Testing

@testable import HeraldSocketIO

/// An application on the Socket.IO server: echoes every event back as `["echo", <data>]` (a binary one
/// with its attachments; `ask-binary` is answered with a binary `answer` holding the event's text),
/// refuses the namespace `/refused`, and records disconnects.
final class EchoHandler: SocketIOHandler {
    let disconnects = Mutex<[String]>([])

    func connect(_ socket: SocketIOSocket) async -> String? {
        socket.namespace == "/refused" ? "not \"here\"" : nil
    }

    func event(_ socket: SocketIOSocket, name: String?, data: String) async {
        socket.emit("[\"echo\",\(data)]")
    }

    func event(_ socket: SocketIOSocket, name: String?, data: String, attachments: [ByteBuffer]) async {
        if name == "ask-binary" {
            socket.emit(binaryEvent: "answer", attachment: ByteBuffer(string: data))
        } else if attachments.isEmpty {
            await event(socket, name: name, data: data)
        } else {
            socket.emit("[\"echo\",\(data)]", attachments: attachments)
        }
    }

    func disconnected(_ socket: SocketIOSocket, reason: SocketIODisconnectReason) async {
        disconnects.withLock { $0.append(reason.description) }
    }
}

@Suite struct EngineServerTests {
    static func withServer(
        _ configuration: EngineConfiguration = EngineConfiguration(),
        _ body: @escaping @Sendable (SocketIOServer, EchoHandler, any TestClientProtocol) async throws -> Void
    ) async throws {
        let handler = EchoHandler()
        let server = SocketIOServer(configuration: configuration, handler: handler, logger: Logger(label: "test"))
        let router = Router()
        for method in [HTTPRequest.Method.get, .post] {
            router.on("/{app}", method: method) { request, _ in await server.respond(to: request) }
        }
        let app = Application(router: router, services: [server])
        try await app.test(.live) { client in try await body(server, handler, client) }
    }

    static func text(_ response: TestResponse) -> String { String(buffer: response.body) }

    /// Opens a polling session and returns its id.
    static func handshake(_ client: any TestClientProtocol, version: Int) async throws -> String {
        let response = try await client.execute(uri: "/app/?EIO=\(version)&transport=polling", method: .get)
        #expect(response.status == .ok)
        let body = text(response)
        let open = version == 4 ? body : String(body.drop { $0 != ":" }.dropFirst())
        #expect(open.hasPrefix("0{"))
        #expect(open.contains("\"upgrades\":[\"websocket\"]"))
        #expect(open.contains("\"pingInterval\":") && open.contains("\"pingTimeout\":"))
        return try #require(body.range(of: "\"sid\":\"").map { String(body[$0.upperBound...].prefix { $0 != "\"" }) })
    }

    @Test func v4HandshakeConnectAndEventRoundTrip() async throws {
        try await Self.withServer { server, handler, client in
            let sid = try await Self.handshake(client, version: 4)
            let post = try await client.execute(
                uri: "/app/?EIO=4&transport=polling&sid=\(sid)", method: .post,
                body: ByteBuffer(string: "40/app,\u{1e}42/app,[\"hello\",{\"a\":1}]"))
            #expect(Self.text(post) == "ok")
            let poll = try await client.execute(uri: "/app/?EIO=4&transport=polling&sid=\(sid)", method: .get)
            let packets = Self.text(poll).split(separator: "\u{1e}").map(String.init)
            #expect(packets.count == 2)
            #expect(packets[0].hasPrefix("40/app,{\"sid\":\""))
            #expect(packets[1] == "42/app,[\"echo\",[\"hello\",{\"a\":1}]]")
            // The client closes: the handler hears of it once.
            _ = try await client.execute(uri: "/app/?EIO=4&transport=polling&sid=\(sid)", method: .post, body: ByteBuffer(string: "1"))
            try await Self.eventually { handler.disconnects.withLock { $0 } == ["transport close"] }
            #expect(server.engine.sessionCount == 0)
        }
    }

    @Test func v3ConnectsTheRootNamespaceAtOnceAndAnswersPings() async throws {
        try await Self.withServer { _, _, client in
            let response = try await client.execute(uri: "/app/?EIO=3&transport=polling", method: .get)
            let body = Self.text(response)
            // The open packet, then socket.io 2's connect to "/".
            #expect(body.hasSuffix("2:40"))
            let sid = try #require(body.range(of: "\"sid\":\"").map { String(body[$0.upperBound...].prefix { $0 != "\"" }) })
            _ = try await client.execute(
                uri: "/app/?EIO=3&transport=polling&sid=\(sid)", method: .post, body: ByteBuffer(string: "1:27:40/app,"))
            let poll = try await client.execute(uri: "/app/?EIO=3&transport=polling&sid=\(sid)", method: .get)
            // The pong, then the namespace's connect without a payload (protocol v4).
            #expect(Self.text(poll) == "1:37:40/app,")
        }
    }

    @Test func refusedNamespacesGetConnectError() async throws {
        try await Self.withServer { _, _, client in
            let sid = try await Self.handshake(client, version: 4)
            _ = try await client.execute(
                uri: "/app/?EIO=4&transport=polling&sid=\(sid)", method: .post, body: ByteBuffer(string: "40/refused,"))
            let poll = try await client.execute(uri: "/app/?EIO=4&transport=polling&sid=\(sid)", method: .get)
            #expect(Self.text(poll) == "44/refused,{\"message\":\"not \\\"here\\\"\"}")
        }
    }

    @Test func errorsAreEngineIOs() async throws {
        try await Self.withServer { _, _, client in
            let version = try await client.execute(uri: "/app/?EIO=2&transport=polling", method: .get)
            #expect(version.status == .badRequest && Self.text(version).contains("\"code\":5"))
            let transport = try await client.execute(uri: "/app/?EIO=4&transport=carrier-pigeon", method: .get)
            #expect(transport.status == .badRequest && Self.text(transport).contains("\"code\":0"))
            let unknown = try await client.execute(uri: "/app/?EIO=4&transport=polling&sid=nope", method: .get)
            #expect(unknown.status == .badRequest && Self.text(unknown).contains("\"code\":1"))
            let method = try await client.execute(uri: "/app/?EIO=4&transport=polling", method: .post, body: ByteBuffer(string: "4x"))
            #expect(method.status == .badRequest && Self.text(method).contains("\"code\":2"))
        }
    }

    @Test func malformedPacketsCloseTheSession() async throws {
        try await Self.withServer { server, handler, client in
            let sid = try await Self.handshake(client, version: 4)
            _ = try await client.execute(
                uri: "/app/?EIO=4&transport=polling&sid=\(sid)", method: .post, body: ByteBuffer(string: "40/app,"))
            let bad = try await client.execute(
                uri: "/app/?EIO=4&transport=polling&sid=\(sid)", method: .post, body: ByteBuffer(string: "42/app,{\"not\":\"an array\"}"))
            #expect(bad.status == .ok)
            try await Self.eventually { handler.disconnects.withLock { $0 } == ["parse error"] }
            #expect(server.engine.sessionCount == 0)
            let gone = try await client.execute(uri: "/app/?EIO=4&transport=polling&sid=\(sid)", method: .get)
            #expect(gone.status == .badRequest)
        }
    }

    @Test func oversizedBodiesAreRefused() async throws {
        try await Self.withServer(EngineConfiguration(maxPayload: 1024)) { server, _, client in
            let sid = try await Self.handshake(client, version: 4)
            let big = try await client.execute(
                uri: "/app/?EIO=4&transport=polling&sid=\(sid)", method: .post,
                body: ByteBuffer(string: "4" + String(repeating: "x", count: 2000)))
            #expect(big.status == .contentTooLarge)
            #expect(server.engine.sessionCount == 0)
        }
    }

    @Test func aClientThatStopsPollingTimesOut() async throws {
        // A timeout long enough for a loaded machine to answer in time, short enough for `eventually`.
        try await Self.withServer(EngineConfiguration(pingInterval: .milliseconds(200), pingTimeout: .milliseconds(1500))) {
            server, handler, client in
            let sid = try await Self.handshake(client, version: 4)
            _ = try await client.execute(
                uri: "/app/?EIO=4&transport=polling&sid=\(sid)", method: .post, body: ByteBuffer(string: "40/app,"))
            // One poll: the connect answer; then the server's ping arrives and is answered once.
            _ = try await client.execute(uri: "/app/?EIO=4&transport=polling&sid=\(sid)", method: .get)
            let ping = try await client.execute(uri: "/app/?EIO=4&transport=polling&sid=\(sid)", method: .get)
            #expect(Self.text(ping) == "2")
            _ = try await client.execute(uri: "/app/?EIO=4&transport=polling&sid=\(sid)", method: .post, body: ByteBuffer(string: "3"))
            #expect(server.engine.sessionCount == 1)
            // Then nothing: the next ping goes unanswered.
            try await Self.eventually { handler.disconnects.withLock { $0 } == ["ping timeout"] }
            #expect(server.engine.sessionCount == 0)
        }
    }

    @Test func theSessionLimitAnswers503() async throws {
        try await Self.withServer(EngineConfiguration(maxSessions: 2)) { server, _, client in
            _ = try await Self.handshake(client, version: 4)
            _ = try await Self.handshake(client, version: 4)
            let third = try await client.execute(uri: "/app/?EIO=4&transport=polling", method: .get)
            #expect(third.status == .serviceUnavailable)
            #expect(server.engine.sessionCount == 2)
        }
    }

    @Test func aClientThatDoesNotReadIsClosed() async throws {
        try await Self.withServer(EngineConfiguration(maxBufferedPackets: 10)) { server, handler, client in
            let sid = try await Self.handshake(client, version: 4)
            let events = (0..<20).map { "42/app,[\"e\",\($0)]" }.joined(separator: "\u{1e}")
            _ = try await client.execute(
                uri: "/app/?EIO=4&transport=polling&sid=\(sid)", method: .post, body: ByteBuffer(string: "40/app,\u{1e}" + events))
            try await Self.eventually { handler.disconnects.withLock { $0 } == ["buffer overflow"] }
            #expect(server.engine.sessionCount == 0)
        }
    }

    static func eventually(_ condition: () -> Bool) async throws {
        for _ in 0..<100 {
            if condition() { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(condition())
    }
}
