import NIOCore

/// A packet waiting for its client: an encoded text packet (its type digit first), or a binary message's
/// bytes, which each transport writes its own way (a binary WebSocket frame; base64 in a polling body).
enum OutboundPacket: Sendable, Hashable {
    case text(ByteBuffer)
    case binary(ByteBuffer)

    init(_ text: String) { self = .text(ByteBuffer(string: text)) }

    /// Bytes in a v4 polling body (base64 makes four of every three).
    var encodedSize: Int {
        switch self {
        case .text(let text): text.readableBytes
        case .binary(let bytes): 1 + (bytes.readableBytes + 2) / 3 * 4
        }
    }
}
