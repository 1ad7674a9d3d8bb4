import HeraldCore
import HeraldSocketIO
import NIOCore

/// Where one RT subscription's results go: its connection's socket, as `SUB_RES` events with its id:
/// `["SUB_RES",{"id":…,"data":…}]`, or, to a binary client (the Java SDK), a binary `SUB_RES` whose
/// attachment is that object.
struct RTListener: Sendable {
    let socket: SocketIOSocket
    let binary: Bool
    /// `{"id":"…","data":`, made once.
    private let objectPrefix: String
    /// Text: `42/{appId},["SUB_RES",{"id":"…","data":`, in bytes, for `send(encoded:)`. Binary: the
    /// whole text packet (`451-/{appId},["SUB_RES",{placeholder}]`), the same for every result.
    private let packetPrefix: ByteBuffer

    init(socket: SocketIOSocket, subscriptionId: String, binary: Bool = false) {
        self.socket = socket
        self.binary = binary
        objectPrefix = "{\"id\":" + RTListener.string(subscriptionId) + ",\"data\":"
        packetPrefix =
            binary ? socket.binaryEventPacket("SUB_RES") : ByteBuffer(string: socket.eventPacketPrefix + "[\"SUB_RES\"," + objectPrefix)
    }

    /// Sends one result already encoded once for every listener (a channel's message): its bytes are
    /// copied once, behind this listener's prefix, into the packet (or attachment) its connection sends.
    @discardableResult
    func send(encoded data: ByteBuffer) -> Bool {
        var buffer = ByteBuffer()
        if binary {
            buffer.reserveCapacity(objectPrefix.utf8.count + data.readableBytes + 1)
            buffer.writeString(objectPrefix)
            buffer.writeImmutableBuffer(data)
            buffer.writeStaticString("}")
            return socket.emit(packet: packetPrefix, attachments: [buffer])
        }
        buffer.reserveCapacity(packetPrefix.readableBytes + data.readableBytes + 2)
        buffer.writeImmutableBuffer(packetPrefix)
        buffer.writeImmutableBuffer(data)
        buffer.writeStaticString("}]")
        return socket.emit(packet: buffer)
    }

    /// Sends one result (`data` is its JSON text); false when the connection is gone or not reading.
    @discardableResult
    func send(_ data: String) -> Bool { send(encoded: ByteBuffer(string: data)) }

    @discardableResult
    func send(_ data: JSONValue) -> Bool { send(SortedJSON.text(data)) }

    /// A JSON string literal.
    static func string(_ text: String) -> String { SortedJSON.text(JSONValue.string(text)) }
}
