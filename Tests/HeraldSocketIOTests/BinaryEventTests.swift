import Foundation
import Hummingbird
import HummingbirdTesting
import HummingbirdWSClient
import HummingbirdWSTesting
import HummingbirdWebSocket
import Logging
import NIOCore
import Synchronization
import Testing

@testable import HeraldSocketIO

/// Binary events both ways over each transport: the client's event with its attachment reaches the
/// handler and comes back echoed, a text packet then the attachment; broken framing closes the session.
@Suite struct BinaryEventTests {
    static let event = #"451-/app,["up",{"_placeholder":true,"num":0}]"#
    static let echo = #"451-/app,["echo",["up",{"_placeholder":true,"num":0}]]"#

    /// The Socket.IO server on polling and WebSocket, as Herald mounts it.
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
        let webSocketRouter = Router(context: BasicWebSocketRequestContext.self)
        webSocketRouter.ws("/{app}", shouldUpgrade: { request, _ in server.acceptsUpgrade(request) ? .upgrade([:]) : .dontUpgrade }) {
            inbound, outbound, context in
            await server.serve(inbound, outbound, request: context.request)
        }
        let app = Application(router: router, server: .http1WebSocketUpgrade(webSocketRouter: webSocketRouter), services: [server])
        try await app.test(.live) { client in try await body(server, handler, client) }
    }

    /// Posts packets (a v4 body) and returns the next poll's packets.
    static func exchange(_ client: any TestClientProtocol, sid: String, _ packets: [String]) async throws -> [String] {
        let path = "/app/?EIO=4&transport=polling&sid=\(sid)"
        let post = try await client.execute(uri: path, method: .post, body: ByteBuffer(string: packets.joined(separator: "\u{1e}")))
        #expect(EngineServerTests.text(post) == "ok")
        let poll = try await client.execute(uri: path, method: .get)
        return EngineServerTests.text(poll).split(separator: "\u{1e}").map(String.init)
    }

    @Test func v4PollingCarriesAttachmentsAsBase64BothWays() async throws {
        try await Self.withServer { _, _, client in
            let sid = try await EngineServerTests.handshake(client, version: 4)
            #expect(try await Self.exchange(client, sid: sid, ["40/app,"]).first?.hasPrefix("40/app,") == true)
            // "hi\u{0}\u{ff}" is aGkA/w== in base64: bytes that are not text survive.
            #expect(try await Self.exchange(client, sid: sid, [Self.event, "baGkA/w=="]) == [Self.echo, "baGkA/w=="])
            let answer = try await Self.exchange(client, sid: sid, [#"42/app,["ask-binary",1]"#])
            #expect(answer == [#"451-/app,["answer",{"_placeholder":true,"num":0}]"#, "bWyJhc2stYmluYXJ5IiwxXQ=="])
        }
    }

    @Test func v3PollingUsesItsOwnBase64Form() async throws {
        try await Self.withServer { _, _, client in
            let open = try await client.execute(uri: "/app/?EIO=3&transport=polling", method: .get)
            let body = EngineServerTests.text(open)
            let sid = try #require(body.range(of: "\"sid\":\"").map { String(body[$0.upperBound...].prefix { $0 != "\"" }) })
            let path = "/app/?EIO=3&transport=polling&sid=\(sid)"
            func exchange(_ packets: [String]) async throws -> String {
                let payload = EnginePayload.encode(packets, version: .v3)
                _ = try await client.execute(uri: path, method: .post, body: ByteBuffer(string: payload))
                return EngineServerTests.text(try await client.execute(uri: path, method: .get))
            }
            #expect(try await exchange(["40/app,"]) == "7:40/app,")
            let echo = try await exchange([Self.event, "b4aGk="])
            #expect(echo == EnginePayload.encode([Self.echo, "b4aGk="], version: .v3))
        }
    }

    @Test(arguments: [EngineVersion.v4, .v3])
    func webSocketsCarryAttachmentsAsBinaryFrames(version: EngineVersion) async throws {
        // v3 puts the message type (4) before a binary frame's data; v4 sends the data alone.
        let attachment: [UInt8] = [0, 0xFF, 1]
        let frame = version == .v3 ? [4] + attachment : attachment
        try await Self.withServer { _, _, client in
            try await client.ws("/app/?EIO=\(version.rawValue)&transport=websocket") { inbound, outbound, _ in
                var messages = inbound.messages(maxSize: 1 << 16).makeAsyncIterator()
                guard case .text(let open)? = try await messages.next() else { throw CancellationError() }
                #expect(open.hasPrefix("0{") && open.contains("\"upgrades\":[]"))
                if version == .v3 { #expect(try await messages.next() == .text("40")) }
                try await outbound.write(.text("40/app,"))
                guard case .text(let connected)? = try await messages.next() else { throw CancellationError() }
                #expect(connected.hasPrefix("40/app,"))
                try await outbound.write(.text(Self.event))
                try await outbound.write(.binary(ByteBuffer(bytes: frame)))
                #expect(try await messages.next() == .text(Self.echo))
                #expect(try await messages.next() == .binary(ByteBuffer(bytes: frame)))
            }
        }
    }

    @Test(arguments: [
        ["40/app,", "bAAEC"],  // an attachment with no binary event before it
        ["40/app,", event, #"42/app,["next"]"#],  // the attachment never comes: the next packet is text
        ["40/app,", #"4511-/app,["up"]"#],  // more attachments than the limit
        // Two attachments of 600 bytes: past the 1000 the session may send.
        ["40/app,", #"452-/app,["up"]"#, "b" + String(repeating: "A", count: 800), "b" + String(repeating: "A", count: 800)],
    ])
    func brokenFramingClosesTheSession(packets: [String]) async throws {
        try await Self.withServer(EngineConfiguration(maxPayload: 1000)) { server, handler, client in
            let sid = try await EngineServerTests.handshake(client, version: 4)
            for packet in packets {
                _ = try await client.execute(
                    uri: "/app/?EIO=4&transport=polling&sid=\(sid)", method: .post, body: ByteBuffer(string: packet))
            }
            try await EngineServerTests.eventually { handler.disconnects.withLock { $0 } == ["parse error"] }
            #expect(server.engine.sessionCount == 0)
        }
    }

    @Test func aBinaryEventIsQueuedWholeOrNotAtAll() async throws {
        // The connect answer waits; the echo's text and two attachments would make four of three.
        try await Self.withServer(EngineConfiguration(maxBufferedPackets: 3)) { server, handler, client in
            let sid = try await EngineServerTests.handshake(client, version: 4)
            let event = #"452-/app,["up",{"_placeholder":true,"num":0},{"_placeholder":true,"num":1}]"#
            _ = try await client.execute(
                uri: "/app/?EIO=4&transport=polling&sid=\(sid)", method: .post,
                body: ByteBuffer(string: ["40/app,", event, "bAA==", "bAQ=="].joined(separator: "\u{1e}")))
            try await EngineServerTests.eventually { handler.disconnects.withLock { $0 } == ["buffer overflow"] }
            #expect(server.engine.sessionCount == 0)
        }
    }
}
