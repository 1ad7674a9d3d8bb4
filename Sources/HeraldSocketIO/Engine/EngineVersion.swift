/// The Engine.IO protocol a client speaks, from its `EIO` query parameter.
///
/// One server serves both: v4 for socket.io-client 3/4 (the Backendless JS and Java SDKs, Socket.IO
/// protocol v5) and v3 for socket.io-client 2 (the Swift SDK's Socket.IO-Client-Swift in its `.two`
/// mode, Socket.IO protocol v4). They differ in who pings (v4: the server; v3: the client), in how a
/// polling body holds several packets, and in the namespace handshake above them.
public enum EngineVersion: Int, Sendable, Hashable, CustomStringConvertible {
    case v3 = 3
    case v4 = 4

    /// The version a query value names; nil for anything else (answered with Engine.IO's error 5).
    public init?(query value: String?) {
        guard let value, let number = Int(value), let version = EngineVersion(rawValue: number) else { return nil }
        self = version
    }

    public var description: String { "EIO=\(rawValue)" }
}

/// The transports Herald's Engine.IO server offers.
public enum EngineTransport: String, Sendable, Hashable {
    case polling
    case websocket
}
