import NIOCore

/// One Engine.IO packet: its type and its text, or, for a binary message (a Socket.IO event's
/// attachment, as the Java SDK sends its RT requests), its bytes.
public struct EnginePacket: Sendable, Hashable {
    public enum Kind: UInt8, Sendable, Hashable {
        case open = 0
        case close = 1
        case ping = 2
        case pong = 3
        case message = 4
        case upgrade = 5
        case noop = 6
    }

    public var kind: Kind
    public var data: String
    /// Came as binary (a WebSocket binary frame, or base64 in a polling body); its bytes are `bytes`.
    public var binary: Bool
    /// A binary message's bytes (empty for a text packet).
    public var bytes: ByteBuffer

    public init(_ kind: Kind, _ data: String = "", binary: Bool = false) {
        self.kind = kind
        self.data = data
        self.binary = binary
        bytes = ByteBuffer()
    }

    /// A binary message packet.
    public init(binary bytes: ByteBuffer) {
        self.init(.message, binary: true)
        self.bytes = bytes
    }

    /// The packet as text: its type digit, then its data.
    public var encoded: String { String(Character(Unicode.Scalar(kind.rawValue + 48))) + data }

    /// Reads a text packet (`4hello`, `2probe`) or a base64 binary message: v4 writes it `b<base64>`,
    /// v3 `b4<base64>` (the type digit is message's either way). Nil when it is neither.
    public init?(text: Substring, version: EngineVersion = .v4) {
        guard let first = text.utf8.first else { return nil }
        if first == UInt8(ascii: "b") {
            var encoded = text.utf8.dropFirst()
            if version == .v3 {
                guard encoded.first == UInt8(ascii: "4") else { return nil }
                encoded = encoded.dropFirst()
            }
            guard let bytes = Base64.decode(encoded) else { return nil }
            self.init(binary: ByteBuffer(bytes: bytes))
            return
        }
        guard first >= 48, let kind = Kind(rawValue: first - 48) else { return nil }
        self.init(kind, String(text.dropFirst()))
    }

    public init?(text: String, version: EngineVersion = .v4) { self.init(text: Substring(text), version: version) }
}
