import NIOCore

/// Puts a binary event (or acknowledgement) back together: its text packet says how many attachments
/// follow, and the next that many binary messages are them. Anything else in between breaks the
/// framing, as socket.io's own decoder rules: a text packet while attachments are awaited, an
/// attachment with no binary packet before it. One session's; the decisions only, no I/O.
struct BinaryAssembler {
    /// What a packet or attachment completes.
    enum Step: Equatable {
        /// Hand this on: a text packet, or a binary one with all its attachments.
        case ready(SocketPacket, attachments: [ByteBuffer])
        /// A binary packet waits for more attachments.
        case waiting
    }

    /// Why the framing is broken (the session is then closed with a parse error).
    struct Malformed: Error, Equatable, CustomStringConvertible {
        let description: String
    }

    /// Attachments one packet may have.
    let maxAttachments: Int
    /// Bytes one packet's attachments may hold together.
    let maxBytes: Int

    private var pending: SocketPacket?
    private var attachments: [ByteBuffer] = []
    private var bytes = 0

    init(maxAttachments: Int, maxBytes: Int) {
        self.maxAttachments = maxAttachments
        self.maxBytes = maxBytes
    }

    /// Whether attachments are awaited.
    var isWaiting: Bool { pending != nil }

    mutating func receive(_ packet: SocketPacket) throws(Malformed) -> Step {
        guard pending == nil else { throw Malformed(description: "a text packet came while a binary packet's attachments were awaited") }
        guard packet.isBinary, packet.attachments > 0 else { return .ready(packet, attachments: []) }
        guard packet.attachments <= maxAttachments else {
            throw Malformed(description: "\(packet.attachments) attachments: at most \(maxAttachments)")
        }
        pending = packet
        return .waiting
    }

    mutating func receive(attachment: ByteBuffer) throws(Malformed) -> Step {
        guard let packet = pending else { throw Malformed(description: "an attachment came without a binary packet") }
        bytes += attachment.readableBytes
        guard bytes <= maxBytes else { throw Malformed(description: "attachments past \(maxBytes) bytes") }
        attachments.append(attachment)
        guard attachments.count == packet.attachments else { return .waiting }
        let complete = attachments
        pending = nil
        attachments = []
        bytes = 0
        return .ready(packet, attachments: complete)
    }
}
