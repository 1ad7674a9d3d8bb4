import HeraldSocketIO

/// `rt.*`: Backendless RT (the SDKs' `Messaging.subscribe` over socket.io) on Herald's HTTP port.
public struct RTConfiguration: Sendable, Equatable {
    /// Serve RT at `/{appId}/` (and point `/info` at it).
    public var enabled = true
    /// Engine.IO's heartbeat: v4 clients are pinged this often, v3 clients told to ping this often.
    public var pingIntervalSeconds: Double = 25
    /// A ping unanswered (v4), or no ping (v3), this long after the interval closes the connection.
    public var pingTimeoutSeconds: Double = 20
    /// Connections (Engine.IO sessions) one instance holds; the next handshake is answered 503.
    public var maxConnections = 10_000
    /// Connections one app may have on one instance; the next is refused at connect.
    public var maxConnectionsPerApp = 10_000
    /// Subscriptions (of every type) one connection may have; the next is answered with an error.
    public var maxSubscriptionsPerConnection = 100
    /// The largest polling body or WebSocket message a client may send (bytes).
    public var maxMessageBytes = 100_000

    public init() {}

    /// What the Engine.IO server is given.
    var engine: EngineConfiguration {
        EngineConfiguration(
            pingInterval: .milliseconds(Int64(pingIntervalSeconds * 1000)), pingTimeout: .milliseconds(Int64(pingTimeoutSeconds * 1000)),
            maxPayload: maxMessageBytes, maxSessions: maxConnections)
    }
}
