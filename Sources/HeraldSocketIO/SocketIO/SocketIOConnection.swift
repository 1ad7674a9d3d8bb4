import Logging
import NIOConcurrencyHelpers
import NIOCore

/// One Engine.IO session's Socket.IO side: its sockets by namespace, binary packets put back together
/// with their attachments, and its packets on their way to the handler, in order.
final class SocketIOConnection: Sendable {
    let session: EngineSession
    let engine: EngineServer
    let handler: any SocketIOHandler
    let logger: Logger
    /// A packet for the handler, with its attachments when it is a binary one.
    struct Inbound: Sendable {
        let packet: SocketPacket
        let attachments: [ByteBuffer]
    }
    private let inbound: AsyncStream<Inbound>
    private let continuation: AsyncStream<Inbound>.Continuation
    /// Why the session ended, once it has.
    private let ended = NIOLockedValueBox<EngineCloseReason?>(nil)
    private let assembler: NIOLockedValueBox<BinaryAssembler>

    init(session: EngineSession, engine: EngineServer, handler: any SocketIOHandler, logger: Logger) {
        self.session = session
        self.engine = engine
        self.handler = handler
        self.logger = logger
        (inbound, continuation) = AsyncStream.makeStream(
            of: Inbound.self, bufferingPolicy: .bufferingOldest(SocketIOServer.inboundLimit))
        assembler = NIOLockedValueBox(
            BinaryAssembler(maxAttachments: SocketIOServer.maxAttachments, maxBytes: engine.configuration.maxPayload))
    }

    /// A packet from the client: handed on at once, or, a binary one, once its attachments are in. False
    /// when the handler has `SocketIOServer.inboundLimit` packets waiting already.
    func receive(_ packet: SocketPacket) throws(BinaryAssembler.Malformed) -> Bool {
        let step = assembler.withLockedValue { assembler in
            Result { () throws(BinaryAssembler.Malformed) in try assembler.receive(packet) }
        }
        return enqueue(try step.get())
    }

    /// A binary message from the client: the next attachment of the binary packet before it.
    func receive(attachment: ByteBuffer) throws(BinaryAssembler.Malformed) -> Bool {
        let step = assembler.withLockedValue { assembler in
            Result { () throws(BinaryAssembler.Malformed) in try assembler.receive(attachment: attachment) }
        }
        return enqueue(try step.get())
    }

    private func enqueue(_ step: BinaryAssembler.Step) -> Bool {
        guard case .ready(let packet, let attachments) = step else { return true }
        if case .enqueued = continuation.yield(Inbound(packet: packet, attachments: attachments)) { return true }
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
        for await item in inbound {
            await handle(item.packet, attachments: item.attachments, sockets: &sockets)
        }
        // Ended by the session's close, or cancelled when the server stops.
        let reason = ended.withLockedValue { $0 } ?? .serverShutdown
        for socket in sockets.values { await handler.disconnected(socket, reason: .engine(reason)) }
    }

    private func handle(_ packet: SocketPacket, attachments: [ByteBuffer], sockets: inout [String: SocketIOSocket]) async {
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
        case .event, .binaryEvent:
            guard let socket = sockets[packet.namespace] else {
                logger.debug("socket.io event for a namespace not connected", metadata: ["herald.rt.session": "\(session.id)"])
                return
            }
            await handler.event(socket, name: SocketPacket.eventName(packet.data), data: packet.data, attachments: attachments)
        case .ack, .binaryAck:
            // Backendless RT asks for no acknowledgements.
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
