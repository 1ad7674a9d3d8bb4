import NIOCore

/// One client's connection to one namespace.
public final class SocketIOSocket: Sendable {
    /// The socket's own id (what a v5 client is told on connecting).
    public let id: String
    public let namespace: String
    /// The Engine.IO session carrying it: its id, the handshake's query and path.
    public let session: EngineSession
    let engine: EngineServer
    /// `2/namespace,`: what goes before an event's array.
    private let eventPrefix: String
    /// `/namespace,`, or nothing for the root namespace.
    private let namespacePrefix: String

    init(namespace: String, session: EngineSession, engine: EngineServer) {
        id = EngineServer.sessionId()
        self.namespace = namespace
        self.session = session
        self.engine = engine
        namespacePrefix = namespace == "/" ? "" : namespace + ","
        eventPrefix = "2" + namespacePrefix
    }

    /// The Engine.IO session's id: what the Backendless JS SDK reports as the connection's id.
    public var connectionId: String { session.id }

    /// Sends an event: `array` is its JSON array text (`["NAME",{…}]`). False when the session is closed,
    /// or was closed now because its client has too much waiting.
    @discardableResult
    public func emit(_ array: String) -> Bool { engine.send(eventPrefix + array, to: session) }

    /// What an event's Engine.IO packet starts with (`42/namespace,`): a caller that encodes events itself
    /// writes this, then the event's array, and sends the bytes with `emit(packet:)`.
    public var eventPacketPrefix: String { "4" + eventPrefix }

    /// Sends an event packet the caller assembled (`eventPacketPrefix` then the array), without a copy.
    @discardableResult
    public func emit(packet: ByteBuffer) -> Bool { engine.send(packet: packet, to: session) }

    /// Sends a binary event: `array` is its JSON array text with a placeholder
    /// (`{"_placeholder":true,"num":i}`) where attachment `i` goes. The client gets the text packet and
    /// then each attachment as a binary message, all queued at once or not at all.
    @discardableResult
    public func emit(_ array: String, attachments: [ByteBuffer]) -> Bool {
        emit(packet: ByteBuffer(string: "45\(attachments.count)-" + namespacePrefix + array), attachments: attachments)
    }

    /// Sends an event whose one argument is binary (what the Java SDK's RT client reads as `byte[]`).
    @discardableResult
    public func emit(binaryEvent name: String, attachment: ByteBuffer) -> Bool {
        emit(packet: binaryEventPacket(name), attachments: [attachment])
    }

    /// The text packet of an event named `name` whose one argument is an attachment: a caller that sends
    /// many makes it once and sends it with `emit(packet:attachments:)`.
    public func binaryEventPacket(_ name: String) -> ByteBuffer {
        ByteBuffer(
            string: "451-" + namespacePrefix + "[" + SocketIOConnection.jsonString(name) + ",{\"_placeholder\":true,\"num\":0}]")
    }

    /// Sends a binary event's text packet (made by `binaryEventPacket` or the like) and its attachments.
    @discardableResult
    public func emit(packet: ByteBuffer, attachments: [ByteBuffer]) -> Bool {
        var packets = [OutboundPacket.text(packet)]
        packets.reserveCapacity(attachments.count + 1)
        for attachment in attachments { packets.append(.binary(attachment)) }
        return engine.send(packets, to: session)
    }

    /// Leaves the namespace from the server's side and ends the session (one namespace a session is all
    /// Backendless RT uses).
    public func close() {
        engine.send(SocketPacket(.disconnect, namespace: namespace).encoded, to: session)
        engine.close(session, reason: .forcedClose)
    }
}
