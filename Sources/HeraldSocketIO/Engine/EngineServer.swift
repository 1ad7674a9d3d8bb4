import Hummingbird
import Logging
import NIOConcurrencyHelpers
import NIOCore

/// An Engine.IO server (protocol v3 and v4) over Hummingbird: the HTTP long-polling transport, the
/// WebSocket transport and the upgrade from one to the other, the heartbeat, and the limits.
///
/// It knows nothing of what the packets carry: message packets, text or binary, go to its delegate,
/// which sends through `send(_:to:)` (and a binary event's group through `send(_:to:)` of packets). Errors are answered as Engine.IO servers answer them: HTTP 400 with
/// `{"code","message"}` (0 unknown transport, 1 unknown session, 2 bad handshake method, 3 bad request,
/// 5 unsupported protocol version), 503 past the session limit, 413 past the payload limit.
public final class EngineServer: Sendable {
    public let configuration: EngineConfiguration
    let delegate: any EngineDelegate
    let logger: Logger
    let sessions = NIOLockedValueBox([String: EngineSession]())

    public init(configuration: EngineConfiguration, delegate: any EngineDelegate, logger: Logger) {
        self.configuration = configuration
        self.delegate = delegate
        self.logger = logger
    }

    /// Sessions open now.
    public var sessionCount: Int { sessions.withLockedValue { $0.count } }

    public func session(_ id: String) -> EngineSession? { sessions.withLockedValue { $0[id] } }

    /// Sends a message packet's text to the session's client; false when it is closed. A client that has
    /// `maxBufferedPackets` waiting is closed (it is not reading).
    @discardableResult
    public func send(_ text: String, to session: EngineSession) -> Bool { send(packet: ByteBuffer(string: "4" + text), to: session) }

    /// Sends a whole Engine.IO packet, type digit included, already in bytes: the fast path for a
    /// message encoded once and sent to many (`SocketIOSocket.emit(packet:)`).
    @discardableResult
    public func send(packet: ByteBuffer, to session: EngineSession) -> Bool { send([.text(packet)], to: session) }

    /// Sends packets that go together and in order (a binary event's text, then its attachments).
    @discardableResult
    func send(_ packets: [OutboundPacket], to session: EngineSession) -> Bool {
        if session.send(packets) { return true }
        if !session.isClosed { close(session, reason: .overflow) }
        return false
    }

    /// Ends a session: its client is told (a close packet, or its WebSocket closes) and the delegate too.
    public func close(_ session: EngineSession, reason: EngineCloseReason) {
        guard session.markClosed(reason) else { return }
        sessions.withLockedValue { _ = $0.removeValue(forKey: session.id) }
        logger.debug("engine.io session closed", metadata: ["herald.rt.session": "\(session.id)", "reason": "\(reason.rawValue)"])
        delegate.closed(session, reason: reason)
    }

    /// Opens a session; nil past the limit.
    func open(version: EngineVersion, query: [String: String], path: String, transport: EngineTransport) -> EngineSession? {
        let session = EngineSession(
            id: Self.sessionId(), version: version, query: query, path: path, transport: transport,
            maxBuffered: configuration.maxBufferedPackets)
        let added = sessions.withLockedValue { sessions in
            guard sessions.count < configuration.maxSessions else { return false }
            sessions[session.id] = session
            return true
        }
        guard added else { return nil }
        // The open packet goes first, before anything the delegate sends on opening.
        session.send(openPacket(session))
        delegate.opened(session)
        return session
    }

    func openPacket(_ session: EngineSession) -> String {
        let upgrades = configuration.webSocket && !session.isUpgraded ? "[\"websocket\"]" : "[]"
        var json =
            "{\"sid\":\"\(session.id)\",\"upgrades\":\(upgrades),\"pingInterval\":\(EngineConfiguration.milliseconds(configuration.pingInterval)),"
            + "\"pingTimeout\":\(EngineConfiguration.milliseconds(configuration.pingTimeout))"
        if session.version == .v4 { json += ",\"maxPayload\":\(configuration.maxPayload)" }
        return EnginePacket(.open, json + "}").encoded
    }

    /// Handles one packet from the client, whatever its transport.
    func receive(_ packet: EnginePacket, from session: EngineSession) {
        switch packet.kind {
        case .message where packet.binary:
            delegate.received(binary: packet.bytes, from: session)
        case .message:
            delegate.received(packet.data, from: session)
        case .ping:
            // v3's heartbeat comes from the client; the answer echoes its data.
            session.heard()
            session.send(EnginePacket(.pong, packet.data).encoded)
        case .pong:
            session.heard()
        case .close:
            close(session, reason: .transportClose)
        case .noop:
            break
        case .open, .upgrade:
            close(session, reason: .parseError)
        }
    }

    /// Pings (v4) and times out (both) the sessions, every `configuration.tick`, until cancelled.
    func heartbeats() async {
        while !Task.isCancelled {
            try? await Task.sleep(for: configuration.tick)
            let now = ContinuousClock.now
            for session in sessions.withLockedValue({ Array($0.values) }) {
                switch session.heartbeat(at: now, interval: configuration.pingInterval, timeout: configuration.pingTimeout) {
                case .none: break
                case .ping: session.send(EnginePacket(.ping).encoded)
                case .timedOut: close(session, reason: .pingTimeout)
                }
            }
        }
    }

    /// Closes every session (the server is stopping).
    func closeAll(reason: EngineCloseReason) {
        for session in sessions.withLockedValue({ Array($0.values) }) { close(session, reason: reason) }
    }

    /// 20 random characters of base64url: 120 bits, unguessable.
    static func sessionId() -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        var generator = SystemRandomNumberGenerator()
        return String((0..<20).map { _ in alphabet[Int(generator.next(upperBound: UInt8(64)))] })
    }
}
