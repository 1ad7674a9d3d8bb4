import Logging
import NIOConcurrencyHelpers

/// One Engine.IO session's Socket.IO side: its sockets by namespace, and its packets on their way to
/// the handler, in order.
final class SocketIOConnection: Sendable {
    let session: EngineSession
    let engine: EngineServer
    let handler: any SocketIOHandler
    let logger: Logger
    private let inbound: AsyncStream<SocketPacket>
    private let continuation: AsyncStream<SocketPacket>.Continuation
    /// Why the session ended, once it has.
    private let ended = NIOLockedValueBox<EngineCloseReason?>(nil)

    init(session: EngineSession, engine: EngineServer, handler: any SocketIOHandler, logger: Logger) {
        self.session = session
        self.engine = engine
        self.handler = handler
        self.logger = logger
        (inbound, continuation) = AsyncStream.makeStream(
            of: SocketPacket.self, bufferingPolicy: .bufferingOldest(SocketIOServer.inboundLimit))
    }

    /// False when the handler has `SocketIOServer.inboundLimit` packets waiting already.
    func enqueue(_ item: SocketPacket) -> Bool {
        if case .enqueued = continuation.yield(item) { return true }
        return false
    }

    /// The session ended: the handler learns it once it has the packets before.
    func finish(_ reason: EngineCloseReason) {
        ended.withLockedValue { $0 = reason }
        continuation.finish()
    }

    /// Hands the packets to the handler until the session ends; then every socket is disconnected.
    func run() async {
        var sockets: [String: SocketIOSocket] = [:]
        for await packet in inbound {
            await handle(packet, sockets: &sockets)
        }
        // Ended by the session's close, or cancelled when the server stops.
        let reason = ended.withLockedValue { $0 } ?? .serverShutdown
        for socket in sockets.values { await handler.disconnected(socket, reason: .engine(reason)) }
    }

    private func handle(_ packet: SocketPacket, sockets: inout [String: SocketIOSocket]) async {
        switch packet.kind {
        case .connect:
            if sockets[packet.namespace] != nil || (packet.namespace == "/" && session.version == .v3) { return }
            let socket = SocketIOSocket(namespace: packet.namespace, session: session, engine: engine)
            if let refusal = await handler.connect(socket) {
                engine.send(Self.refusal(refusal, namespace: packet.namespace, version: session.version).encoded, to: session)
                return
            }
            sockets[packet.namespace] = socket
            let data = session.version == .v4 ? "{\"sid\":\"\(socket.id)\"}" : ""
            engine.send(SocketPacket(.connect, namespace: packet.namespace, data: data).encoded, to: session)
        case .disconnect:
            if let socket = sockets.removeValue(forKey: packet.namespace) {
                await handler.disconnected(socket, reason: .clientNamespaceDisconnect)
            }
        case .event:
            guard let socket = sockets[packet.namespace] else {
                logger.debug("socket.io event for a namespace not connected", metadata: ["herald.rt.session": "\(session.id)"])
                return
            }
            await handler.event(socket, name: SocketPacket.eventName(packet.data), data: packet.data)
        case .ack, .binaryEvent, .binaryAck:
            // Backendless RT asks for no acknowledgements and sends no binary from its JSON clients.
            logger.debug("socket.io packet ignored", metadata: ["herald.rt.session": "\(session.id)", "type": "\(packet.kind)"])
        case .connectError:
            engine.close(session, reason: .parseError)
        }
    }

    /// A refused connect: v5 `44/ns,{"message":…}`, v4 (socket.io 2) `44/ns,"…"`.
    static func refusal(_ message: String, namespace: String, version: EngineVersion) -> SocketPacket {
        let text = jsonString(message)
        return SocketPacket(.connectError, namespace: namespace, data: version == .v4 ? "{\"message\":\(text)}" : text)
    }

    /// A JSON string literal.
    static func jsonString(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
