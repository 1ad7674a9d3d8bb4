import HeraldCore
import HeraldSocketIO
import NIOCore

/// Where one RT subscription's results go: its connection's socket, as `SUB_RES` events with its id.
struct RTListener: Sendable {
    let socket: SocketIOSocket
    /// `["SUB_RES",{"id":"…","data":`, made once.
    private let prefix: String
    /// The same after the event packet's own prefix (`42/{appId},`), in bytes, for `send(encoded:)`.
    private let packetPrefix: ByteBuffer

    init(socket: SocketIOSocket, subscriptionId: String) {
        self.socket = socket
        prefix = "[\"SUB_RES\",{\"id\":" + RTListener.string(subscriptionId) + ",\"data\":"
        packetPrefix = ByteBuffer(string: socket.eventPacketPrefix + prefix)
    }

    /// Sends one result already encoded once for every listener (a channel's message): its bytes are
    /// copied once, behind this listener's prefix, into the packet its connection sends.
    @discardableResult
    func send(encoded data: ByteBuffer) -> Bool {
        var packet = ByteBuffer()
        packet.reserveCapacity(packetPrefix.readableBytes + data.readableBytes + 2)
        packet.writeImmutableBuffer(packetPrefix)
        packet.writeImmutableBuffer(data)
        packet.writeStaticString("}]")
        return socket.emit(packet: packet)
    }

    /// Sends one result (`data` is its JSON text); false when the connection is gone or not reading.
    @discardableResult
    func send(_ data: String) -> Bool { socket.emit(prefix + data + "}]") }

    @discardableResult
    func send(_ data: JSONValue) -> Bool { send(SortedJSON.text(data)) }

    /// A JSON string literal.
    static func string(_ text: String) -> String { SortedJSON.text(JSONValue.string(text)) }
}
