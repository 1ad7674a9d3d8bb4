/// One Engine.IO packet: its type and its text. Binary packets are not part of Backendless RT's JSON
/// events; a binary one is decoded as `binary` so the session can refuse it rather than misread it.
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
    /// Came as binary (a WebSocket binary frame, or `b…` base64 in a polling body).
    public var binary: Bool

    public init(_ kind: Kind, _ data: String = "", binary: Bool = false) {
        self.kind = kind
        self.data = data
        self.binary = binary
    }

    /// The packet as text: its type digit, then its data.
    public var encoded: String { String(Character(Unicode.Scalar(kind.rawValue + 48))) + data }

    /// Reads a text packet (`4hello`, `2probe`); nil when it does not start with a known type digit.
    public init?(text: Substring) {
        guard let first = text.utf8.first else { return nil }
        if first == UInt8(ascii: "b") {
            // Base64 binary (v4 polling; v3's is `b4…`): the type is message either way.
            self.init(.message, "", binary: true)
            return
        }
        guard first >= 48, let kind = Kind(rawValue: first - 48) else { return nil }
        self.init(kind, String(text.dropFirst()))
    }

    public init?(text: String) { self.init(text: Substring(text)) }
}
