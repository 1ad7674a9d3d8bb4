import NIOCore

/// One client's connection to one namespace.
public final class SocketIOSocket: Sendable {
    /// The socket's own id (what a v5 client is told on connecting).
    public let id: String
    public let namespace: String
    /// The Engine.IO session carrying it: its id, the handshake's query and path.
    public let session: EngineSession
    let engine: EngineServer
    /// `42/namespace,`: what goes before an event's array.
    private let eventPrefix: String

    init(namespace: String, session: EngineSession, engine: EngineServer) {
        id = EngineServer.sessionId()
        self.namespace = namespace
        self.session = session
        self.engine = engine
        eventPrefix = "2" + (namespace == "/" ? "" : namespace + ",")
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

    /// Leaves the namespace from the server's side and ends the session (one namespace a session is all
    /// Backendless RT uses).
    public func close() {
        engine.send(SocketPacket(.disconnect, namespace: namespace).encoded, to: session)
        engine.close(session, reason: .forcedClose)
    }
}
