import NIOCore

/// A polling request's or answer's body: several packets in one.
///
/// - v4 separates text packets with the record separator 0x1E.
/// - v3 prefixes each with its length and a colon (`6:4hello`), the length in UTF-16 code units as
///   JavaScript counts; a client that does not ask for base64 (`b64=1`) may also send the binary form
///   (`0x00`, the length's decimal digits as bytes 0–9, `0xFF`, then the packet), as python-engineio 3 does.
public enum EnginePayload {
    /// Why a body could not be read.
    public struct Malformed: Error, Sendable, CustomStringConvertible {
        public let description: String
    }

    /// The most packets one body may hold.
    public static let maxPackets = 1000

    public static func encode(_ packets: [String], version: EngineVersion) -> String {
        switch version {
        case .v4:
            return packets.joined(separator: "\u{1e}")
        case .v3:
            var text = ""
            for packet in packets {
                text += String(packet.utf16.count)
                text += ":"
                text += packet
            }
            return text
        }
    }

    /// A poll's answer: the packets in the version's form, a binary message as base64 text (`b<base64>`
    /// in v4, `b4<base64>` in v3, which every v3 client reads whether or not it asked for `b64`).
    static func encode(_ packets: [OutboundPacket], version: EngineVersion) -> ByteBuffer {
        switch version {
        case .v4:
            var body = ByteBuffer()
            body.reserveCapacity(packets.reduce(packets.count) { $0 + $1.encodedSize })
            for (index, packet) in packets.enumerated() {
                if index > 0 { body.writeInteger(UInt8(0x1E)) }
                switch packet {
                case .text(let text): body.writeImmutableBuffer(text)
                case .binary(let bytes): body.writeBytes(base64(bytes, prefix: "b"))
                }
            }
            return body
        case .v3:
            // Lengths in UTF-16 units: the text is needed.
            let texts = packets.map { packet in
                switch packet {
                case .text(let text): String(buffer: text)
                case .binary(let bytes): String(decoding: base64(bytes, prefix: "b4"), as: UTF8.self)
                }
            }
            return ByteBuffer(string: encode(texts, version: .v3))
        }
    }

    private static func base64(_ bytes: ByteBuffer, prefix: String) -> [UInt8] {
        var text = Array(prefix.utf8)
        Base64.encode(bytes.readableBytesView, into: &text)
        return text
    }

    public static func decode(_ body: [UInt8], version: EngineVersion) throws(Malformed) -> [EnginePacket] {
        guard !body.isEmpty else { throw Malformed(description: "empty payload") }
        switch version {
        case .v4:
            var packets: [EnginePacket] = []
            for part in body.split(separator: 0x1E, omittingEmptySubsequences: false) {
                guard packets.count < maxPackets else { throw Malformed(description: "more than \(maxPackets) packets") }
                guard let text = String(validating: part, as: UTF8.self), let packet = EnginePacket(text: text, version: .v4) else {
                    throw Malformed(description: "a packet is not a known Engine.IO packet")
                }
                packets.append(packet)
            }
            return packets
        case .v3:
            return body[0] <= 1 ? try decodeBinaryForm(body[...]) : try decodeTextForm(body)
        }
    }

    /// `len:packet…`, the length in UTF-16 code units.
    private static func decodeTextForm(_ body: [UInt8]) throws(Malformed) -> [EnginePacket] {
        guard let text = String(validating: body, as: UTF8.self) else { throw Malformed(description: "payload is not UTF-8") }
        var packets: [EnginePacket] = []
        var rest = Substring(text)
        while !rest.isEmpty {
            guard packets.count < maxPackets else { throw Malformed(description: "more than \(maxPackets) packets") }
            guard let colon = rest.firstIndex(of: ":"), rest.distance(from: rest.startIndex, to: colon) <= 10,
                let length = Int(rest[..<colon]), length > 0
            else { throw Malformed(description: "a packet's length is missing") }
            let start = rest.index(after: colon)
            let utf16 = rest.utf16
            guard let end = utf16.index(start, offsetBy: length, limitedBy: utf16.endIndex),
                let packet = EnginePacket(text: rest[start..<end], version: .v3)
            else { throw Malformed(description: "a packet runs past the payload's end or is not an Engine.IO packet") }
            packets.append(packet)
            rest = rest[end...]
        }
        return packets
    }

    /// `0x00|0x01, digits (0–9 each a byte), 0xFF, packet`: the length in bytes.
    private static func decodeBinaryForm(_ body: ArraySlice<UInt8>) throws(Malformed) -> [EnginePacket] {
        var packets: [EnginePacket] = []
        var index = body.startIndex
        while index < body.endIndex {
            guard packets.count < maxPackets else { throw Malformed(description: "more than \(maxPackets) packets") }
            let isBinary = body[index] == 1
            index += 1
            var length = 0
            var digits = 0
            while index < body.endIndex, body[index] != 0xFF {
                guard body[index] <= 9, digits < 10 else { throw Malformed(description: "a packet's length is not decimal digits") }
                length = length * 10 + Int(body[index])
                digits += 1
                index += 1
            }
            guard index < body.endIndex, digits > 0 else { throw Malformed(description: "a packet's length is missing") }
            index += 1
            guard length <= body.endIndex - index else { throw Malformed(description: "a packet runs past the payload's end") }
            let bytes = body[index..<(index + length)]
            index += length
            if isBinary {
                // The packet's type as a byte (4, message), then its data.
                guard bytes.first == 4 else { throw Malformed(description: "a binary packet is not a message") }
                packets.append(EnginePacket(binary: ByteBuffer(bytes: bytes.dropFirst())))
                continue
            }
            guard let text = String(validating: bytes, as: UTF8.self), let packet = EnginePacket(text: text) else {
                throw Malformed(description: "a packet is not a known Engine.IO packet")
            }
            packets.append(packet)
        }
        return packets
    }
}
