import NIOCore

/// What the layer above Engine.IO (Socket.IO) is told of a session. Calls come in order for one session,
/// and must not block: the layer above hands them to its own task.
public protocol EngineDelegate: Sendable {
    /// A session was opened; packets sent now go out with the handshake's answer.
    func opened(_ session: EngineSession)
    /// A text message packet arrived.
    func received(_ text: String, from session: EngineSession)
    /// A binary message packet arrived (a Socket.IO event's attachment).
    func received(binary: ByteBuffer, from session: EngineSession)
    /// The session ended (called once).
    func closed(_ session: EngineSession, reason: EngineCloseReason)
}

extension EngineDelegate {
    /// A delegate that reads text only passes binary messages over.
    public func received(binary: ByteBuffer, from session: EngineSession) {}
}
