/// The Engine.IO server's timing and limits.
public struct EngineConfiguration: Sendable, Equatable {
    /// v4: the server pings this often; v3: the client is told to ping this often.
    public var pingInterval: Duration
    /// v4: a ping unanswered this long closes the session; v3: a session with no ping for the interval
    /// plus this long is closed. Either way a client that vanished (a polling client stops polling) goes.
    public var pingTimeout: Duration
    /// The largest polling body or WebSocket message a client may send (bytes; told to v4 clients).
    public var maxPayload: Int
    /// Sessions this server holds at once; a handshake past it is answered 503.
    public var maxSessions: Int
    /// Packets a session may have waiting for its client; a client that falls further behind is closed.
    public var maxBufferedPackets: Int
    /// Offer the upgrade to WebSocket (and accept WebSocket-only clients).
    public var webSocket: Bool

    public init(
        pingInterval: Duration = .seconds(25), pingTimeout: Duration = .seconds(20), maxPayload: Int = 100_000,
        maxSessions: Int = 10_000, maxBufferedPackets: Int = 10_000, webSocket: Bool = true
    ) {
        self.pingInterval = pingInterval
        self.pingTimeout = pingTimeout
        self.maxPayload = maxPayload
        self.maxSessions = maxSessions
        self.maxBufferedPackets = maxBufferedPackets
        self.webSocket = webSocket
    }

    /// How often the sessions' ping deadlines are looked at.
    var tick: Duration { min(.seconds(1), pingTimeout / 4, pingInterval / 4) }

    static func milliseconds(_ duration: Duration) -> Int64 {
        duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
    }
}

/// Why a session ended, in Engine.IO's own words (what a socket.io server reports as the reason).
public enum EngineCloseReason: String, Sendable, Hashable, CaseIterable {
    /// The client closed it (a close packet, or its WebSocket closed).
    case transportClose = "transport close"
    case pingTimeout = "ping timeout"
    /// The transport failed: a second poll at once, a write that failed, a request past the size limit.
    case transportError = "transport error"
    /// The client sent something that is not Engine.IO or Socket.IO.
    case parseError = "parse error"
    /// The server closed it (the layer above refused or dropped the client).
    case forcedClose = "forced close"
    /// The client did not read what it was sent, or sent faster than it is served.
    case overflow = "buffer overflow"
    case serverShutdown = "server shutting down"
}
