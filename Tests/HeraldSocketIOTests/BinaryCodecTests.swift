import NIOCore
import Testing

@testable import HeraldSocketIO

/// Binary messages in each encoding, and a binary event put back together with its attachments.
@Suite struct BinaryCodecTests {
    @Test(arguments: [("", ""), ("f", "Zg=="), ("fo", "Zm8="), ("foo", "Zm9v"), ("foob", "Zm9vYg=="), ("fooba", "Zm9vYmE=")])
    func base64IsRFC4648s(plain: String, encoded: String) {
        var text: [UInt8] = []
        Base64.encode(Array(plain.utf8), into: &text)
        #expect(String(decoding: text, as: UTF8.self) == encoded)
        #expect(Base64.decode(Array(encoded.utf8)) == Array(plain.utf8))
        #expect(Base64.decode(Array(encoded.utf8).filter { $0 != UInt8(ascii: "=") }) == Array(plain.utf8), "padding is optional")
    }

    @Test func base64AllBytesRoundTrip() {
        let bytes = (0...255).map(UInt8.init)
        var text: [UInt8] = []
        Base64.encode(bytes, into: &text)
        #expect(Base64.decode(text) == bytes)
    }

    @Test(arguments: ["Z", "Zg=a", "Zm9v!", "Zg===", "Z===", "Zm9vY"])
    func base64RefusesWhatIsNot(text: String) {
        #expect(Base64.decode(Array(text.utf8)) == nil)
    }

    @Test func binaryMessagesKeepTheirBytesInEachEncoding() throws {
        // v4 polling: `b<base64>`; v3 polling's text form: `b4<base64>`.
        #expect(EnginePacket(text: "bAAEC") == EnginePacket(binary: ByteBuffer(bytes: [0, 1, 2])))
        #expect(EnginePacket(text: "b4AAEC", version: .v3) == EnginePacket(binary: ByteBuffer(bytes: [0, 1, 2])))
        #expect(EnginePacket(text: "bAAEC", version: .v3) == nil, "v3 names the message type")
        #expect(EnginePacket(text: "b!!") == nil)
        let v4 = try EnginePayload.decode(Array("451-/a,[\"e\",{\"_placeholder\":true,\"num\":0}]\u{1e}beyJ4IjoxfQ==".utf8), version: .v4)
        #expect(v4.count == 2 && v4[1] == EnginePacket(binary: ByteBuffer(string: "{\"x\":1}")))
        // v3's binary form: marker 1, then the packet type as a byte, then the data.
        let v3 = try EnginePayload.decode([0x01, 4, 0xFF, 4, 0xCA, 0xFE, 0x07] + [0x00, 1, 0xFF, UInt8(ascii: "6")], version: .v3)
        #expect(v3 == [EnginePacket(binary: ByteBuffer(bytes: [0xCA, 0xFE, 0x07])), EnginePacket(.noop)])
        #expect(throws: EnginePayload.Malformed.self) { try EnginePayload.decode([0x01, 2, 0xFF, 3, 0xCA], version: .v3) }
    }

    @Test func pollsCarryBinaryMessagesAsBase64() {
        let packets: [OutboundPacket] = [
            OutboundPacket("451-/a,[\"e\",{\"_placeholder\":true,\"num\":0}]"), .binary(ByteBuffer(bytes: [0, 1, 2])),
        ]
        #expect(
            String(buffer: EnginePayload.encode(packets, version: .v4)) == "451-/a,[\"e\",{\"_placeholder\":true,\"num\":0}]\u{1e}bAAEC")
        #expect(
            String(buffer: EnginePayload.encode(packets, version: .v3)) == "42:451-/a,[\"e\",{\"_placeholder\":true,\"num\":0}]6:b4AAEC")
        #expect(OutboundPacket.binary(ByteBuffer(bytes: [0, 1, 2, 3])).encodedSize == 9)
    }

    @Test func binaryPacketsCountTheirAttachments() throws {
        let packet = try SocketPacket(decoding: "52-/app,[\"e\",{\"_placeholder\":true,\"num\":0},{\"_placeholder\":true,\"num\":1}]")
        #expect(packet.kind == .binaryEvent && packet.attachments == 2 && packet.isBinary)
        #expect(packet.encoded == "52-/app,[\"e\",{\"_placeholder\":true,\"num\":0},{\"_placeholder\":true,\"num\":1}]")
        #expect(try SocketPacket(decoding: "61-/app,3[{\"_placeholder\":true,\"num\":0}]").ackId == 3)
        #expect(throws: SocketPacket.Malformed.self) { try SocketPacket(decoding: "5-/app,[]") }
        #expect(throws: SocketPacket.Malformed.self) { try SocketPacket(decoding: "51234-/app,[]") }
    }

    @Test func theAssemblerWaitsForEachAttachment() throws {
        var assembler = BinaryAssembler(maxAttachments: 2, maxBytes: 10)
        let text = SocketPacket(.event, namespace: "/a", data: "[\"e\"]")
        #expect(try assembler.receive(text) == .ready(text, attachments: []))
        let binary = SocketPacket(.binaryEvent, namespace: "/a", data: "[\"e\"]", attachments: 2)
        #expect(try assembler.receive(binary) == .waiting)
        #expect(try assembler.receive(attachment: ByteBuffer(string: "one")) == .waiting)
        #expect(
            try assembler.receive(attachment: ByteBuffer(string: "two"))
                == .ready(binary, attachments: [ByteBuffer(string: "one"), ByteBuffer(string: "two")]))
        #expect(!assembler.isWaiting)
        let none = SocketPacket(.binaryEvent, namespace: "/a", data: "[\"e\"]", attachments: 0)
        #expect(try assembler.receive(none) == .ready(none, attachments: []))
    }

    @Test func theAssemblerRefusesBrokenFraming() throws {
        func fresh() -> BinaryAssembler { BinaryAssembler(maxAttachments: 2, maxBytes: 10) }
        var stray = fresh()
        #expect(throws: BinaryAssembler.Malformed.self) { try stray.receive(attachment: ByteBuffer(string: "x")) }
        var interrupted = fresh()
        _ = try interrupted.receive(SocketPacket(.binaryEvent, data: "[]", attachments: 1))
        #expect(throws: BinaryAssembler.Malformed.self) { try interrupted.receive(SocketPacket(.event, data: "[]")) }
        var many = fresh()
        #expect(throws: BinaryAssembler.Malformed.self) { try many.receive(SocketPacket(.binaryEvent, data: "[]", attachments: 3)) }
        var big = fresh()
        _ = try big.receive(SocketPacket(.binaryEvent, data: "[]", attachments: 2))
        _ = try big.receive(attachment: ByteBuffer(string: "123456"))
        #expect(throws: BinaryAssembler.Malformed.self) { try big.receive(attachment: ByteBuffer(string: "123456")) }
    }
}
