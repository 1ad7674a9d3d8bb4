/// One Socket.IO packet, carried in an Engine.IO message packet:
/// `<type>[<attachments>-][<namespace>,][<ack id>][<JSON data>]`.
///
/// The data is kept as text: the layer above parses it (Backendless RT's events are one JSON array),
/// so this module needs no JSON library. A binary event's attachments travel as the Engine.IO binary
/// messages after it; its data holds a placeholder (`{"_placeholder":true,"num":i}`) for each.
public struct SocketPacket: Sendable, Hashable {
    public enum Kind: UInt8, Sendable, Hashable {
        case connect = 0
        case disconnect = 1
        case event = 2
        case ack = 3
        case connectError = 4
        case binaryEvent = 5
        case binaryAck = 6
    }

    /// Why a packet could not be read.
    public struct Malformed: Error, Sendable, CustomStringConvertible {
        public let description: String
    }

    public var kind: Kind
    /// `/` for the root namespace; without the query a v4 (socket.io 2) client may append.
    public var namespace: String
    /// What a v4 client appended to the namespace after `?` (socket.io 2's per-namespace query).
    public var namespaceQuery: String?
    public var ackId: Int?
    /// The JSON text after the header; empty when there is none.
    public var data: String
    /// How many binary attachments follow a binary event or acknowledgement (0 for other kinds).
    public var attachments: Int

    public init(_ kind: Kind, namespace: String = "/", ackId: Int? = nil, data: String = "", attachments: Int = 0) {
        self.kind = kind
        self.namespace = namespace
        self.ackId = ackId
        self.data = data
        self.attachments = attachments
    }

    /// The longest namespace accepted.
    public static let maxNamespace = 200

    /// Whether binary attachments follow it (`5` or `6`).
    public var isBinary: Bool { kind == .binaryEvent || kind == .binaryAck }

    public init(decoding text: String) throws(Malformed) {
        var rest = Substring(text)
        guard let first = rest.utf8.first, first >= 48, let kind = Kind(rawValue: first - 48) else {
            throw Malformed(description: "unknown Socket.IO packet type")
        }
        rest = rest.dropFirst()
        var attachments = 0
        if kind == .binaryEvent || kind == .binaryAck {
            // `<count>-`: the binary attachments that follow.
            guard let dash = rest.firstIndex(of: "-"), rest[..<dash].allSatisfy(\.isASCIIDigit),
                (1...3).contains(rest.distance(from: rest.startIndex, to: dash)), let count = Int(rest[..<dash])
            else { throw Malformed(description: "binary packet without its attachment count") }
            attachments = count
            rest = rest[rest.index(after: dash)...]
        }
        var namespace = "/"
        var namespaceQuery: String?
        if rest.first == "/" {
            let end = rest.firstIndex(of: ",") ?? rest.endIndex
            var name = rest[..<end]
            if let question = name.firstIndex(of: "?") {
                namespaceQuery = String(name[name.index(after: question)...])
                name = name[..<question]
            }
            guard name.count <= Self.maxNamespace else { throw Malformed(description: "namespace too long") }
            namespace = String(name)
            rest = end == rest.endIndex ? rest[end...] : rest[rest.index(after: end)...]
        }
        var ackId: Int?
        let digits = rest.prefix { $0.isASCIIDigit }
        if !digits.isEmpty {
            guard digits.count <= 15, let id = Int(digits) else { throw Malformed(description: "acknowledgement id too long") }
            ackId = id
            rest = rest.dropFirst(digits.count)
        }
        if let first = rest.first, first != "[", first != "{", first != "\"" {
            throw Malformed(description: "packet data is not JSON")
        }
        if kind == .event || kind == .binaryEvent, rest.first != "[" {
            throw Malformed(description: "an event's data must be an array")
        }
        self.kind = kind
        self.namespace = namespace
        self.namespaceQuery = namespaceQuery
        self.ackId = ackId
        self.attachments = attachments
        data = String(rest)
    }

    /// The packet as text (what goes after the Engine.IO message type `4`).
    public var encoded: String {
        var text = String(Character(Unicode.Scalar(kind.rawValue + 48)))
        if isBinary { text += "\(attachments)-" }
        if namespace != "/" {
            text += namespace
            text += ","
        }
        if let ackId { text += String(ackId) }
        text += data
        return text
    }

    /// The first element of an event's array when it is a plain JSON string (the event's name); nil
    /// when it is not one.
    public static func eventName(_ data: String) -> String? {
        var scalars = data.unicodeScalars.makeIterator()
        func next() -> Unicode.Scalar? {
            while let scalar = scalars.next() {
                if scalar != " " && scalar != "\n" && scalar != "\t" && scalar != "\r" { return scalar }
            }
            return nil
        }
        guard next() == "[", next() == "\"" else { return nil }
        var name = ""
        while let scalar = scalars.next() {
            switch scalar {
            case "\"": return name
            case "\\": return nil  // names with escapes are not events anyone here sends
            default:
                name.unicodeScalars.append(scalar)
                if name.unicodeScalars.count > 100 { return nil }
            }
        }
        return nil
    }
}

extension Character {
    var isASCIIDigit: Bool { isASCII && isNumber }
}
