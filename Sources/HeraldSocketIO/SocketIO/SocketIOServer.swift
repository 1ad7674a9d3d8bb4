import Hummingbird
import HummingbirdWebSocket
import Logging
import NIOConcurrencyHelpers
import NIOCore
import ServiceLifecycle

/// A Socket.IO server (protocol v5 for Engine.IO v4 clients, v4 for Engine.IO v3 clients) on an
/// `EngineServer`: namespaces, connect and its refusal, events both ways (binary ones with their
/// attachments too), disconnects.
///
/// The service runs one task per Engine.IO session, which hands that session's packets to the handler in
/// order, and the heartbeat; when it stops every session is closed. Mount it by routing the Engine.IO
/// path's requests to `respond(to:)` and its WebSocket upgrades (`acceptsUpgrade`) to `serve`.
public final class SocketIOServer: Service, EngineDelegate {
    public let engine: EngineServer
    let handler: any SocketIOHandler
    let logger: Logger
    private let connections = NIOLockedValueBox([String: SocketIOConnection]())
    private let started: AsyncStream<SocketIOConnection>.Continuation
    private let starts: AsyncStream<SocketIOConnection>

    /// Packets one session may have waiting for its handler; a client that sends faster is closed.
    public static let inboundLimit = 1000
    /// Binary attachments one event may have (their bytes together are held to the engine's `maxPayload`).
    public static let maxAttachments = 10

    public init(configuration: EngineConfiguration, handler: any SocketIOHandler, logger: Logger) {
        self.handler = handler
        self.logger = logger
        (starts, started) = AsyncStream.makeStream(of: SocketIOConnection.self)
        engineBox = NIOLockedValueBox(nil)
        engine = EngineServer(configuration: configuration, delegate: Forwarder(box: engineBox), logger: logger)
        engineBox.withLockedValue { $0 = self }
    }

    /// The engine's delegate is this server, reached through a box (the engine exists before `self`).
    private let engineBox: NIOLockedValueBox<SocketIOServer?>

    private struct Forwarder: EngineDelegate {
        let box: NIOLockedValueBox<SocketIOServer?>
        func opened(_ session: EngineSession) { box.withLockedValue { $0 }?.opened(session) }
        func received(_ text: String, from session: EngineSession) { box.withLockedValue { $0 }?.received(text, from: session) }
        func received(binary: ByteBuffer, from session: EngineSession) {
            box.withLockedValue { $0 }?.received(binary: binary, from: session)
        }
        func closed(_ session: EngineSession, reason: EngineCloseReason) { box.withLockedValue { $0 }?.closed(session, reason: reason) }
    }

    public func respond(to request: Request) async -> Response { await engine.respond(to: request) }

    public func acceptsUpgrade(_ request: Request) -> Bool { engine.acceptsUpgrade(request) }

    public func serve(_ inbound: WebSocketInboundStream, _ outbound: WebSocketOutboundWriter, request: Request) async {
        await engine.serve(inbound, outbound, request: request)
    }

    public func run() async throws {
        await withGracefulShutdownHandler {
            await cancelWhenGracefulShutdown {
                await withDiscardingTaskGroup { group in
                    group.addTask { await self.engine.heartbeats() }
                    for await connection in self.starts {
                        group.addTask { await connection.run() }
                    }
                }
            }
        } onGracefulShutdown: {
            self.engine.closeAll(reason: .serverShutdown)
            self.started.finish()
        }
        engine.closeAll(reason: .serverShutdown)
    }

    // MARK: EngineDelegate

    public func opened(_ session: EngineSession) {
        let connection = SocketIOConnection(session: session, engine: engine, handler: handler, logger: logger)
        connections.withLockedValue { $0[session.id] = connection }
        // Socket.IO v4 (socket.io 2) servers connect every client to the root namespace at once.
        if session.version == .v3 { engine.send(SocketPacket(.connect).encoded, to: session) }
        if case .terminated = started.yield(connection) { engine.close(session, reason: .serverShutdown) }
    }

    public func received(_ text: String, from session: EngineSession) {
        guard let connection = connections.withLockedValue({ $0[session.id] }) else { return }
        do {
            let packet = try SocketPacket(decoding: text)
            if try !connection.receive(packet) { engine.close(session, reason: .overflow) }
        } catch {
            logger.debug("malformed socket.io packet", metadata: ["herald.rt.session": "\(session.id)", "error": "\(error)"])
            engine.close(session, reason: .parseError)
        }
    }

    public func received(binary: ByteBuffer, from session: EngineSession) {
        guard let connection = connections.withLockedValue({ $0[session.id] }) else { return }
        do {
            if try !connection.receive(attachment: binary) { engine.close(session, reason: .overflow) }
        } catch {
            logger.debug("misplaced socket.io attachment", metadata: ["herald.rt.session": "\(session.id)", "error": "\(error)"])
            engine.close(session, reason: .parseError)
        }
    }

    public func closed(_ session: EngineSession, reason: EngineCloseReason) {
        guard let connection = connections.withLockedValue({ $0.removeValue(forKey: session.id) }) else { return }
        connection.finish(reason)
    }
}
