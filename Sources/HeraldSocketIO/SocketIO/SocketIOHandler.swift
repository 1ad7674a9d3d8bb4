import NIOCore

/// The application above Socket.IO (Backendless RT in Herald). One connection's calls come in order,
/// from a task of its own: a call may wait (for a database) without holding up other connections.
public protocol SocketIOHandler: Sendable {
    /// A client connects to `socket.namespace`: nil accepts it, a text refuses it with that message
    /// (the client's `connect_error`).
    func connect(_ socket: SocketIOSocket) async -> String?
    /// An event: `data` is the packet's JSON array text (the event's name first), `name` that name when it
    /// is a plain JSON string.
    func event(_ socket: SocketIOSocket, name: String?, data: String) async
    /// Any event, binary ones included: `attachments` are a binary event's attachments, in order, whose
    /// places `data` marks with placeholders (`{"_placeholder":true,"num":i}`); empty for a text event.
    /// By default a handler sees only `data` (the text one, above).
    func event(_ socket: SocketIOSocket, name: String?, data: String, attachments: [ByteBuffer]) async
    /// The socket is gone: its client left the namespace, or its session ended (`reason` then says why).
    func disconnected(_ socket: SocketIOSocket, reason: SocketIODisconnectReason) async
}

extension SocketIOHandler {
    public func event(_ socket: SocketIOSocket, name: String?, data: String, attachments: [ByteBuffer]) async {
        await event(socket, name: name, data: data)
    }
}

/// Why a socket ended, as a socket.io server names it.
public enum SocketIODisconnectReason: Sendable, Hashable, CustomStringConvertible {
    /// The client left the namespace (`41`).
    case clientNamespaceDisconnect
    /// The server dropped it (`SocketIOSocket.close`).
    case serverNamespaceDisconnect
    /// Its Engine.IO session ended.
    case engine(EngineCloseReason)

    public var description: String {
        switch self {
        case .clientNamespaceDisconnect: "client namespace disconnect"
        case .serverNamespaceDisconnect: "server namespace disconnect"
        case .engine(let reason): reason.rawValue
        }
    }
}
