import Testing

@testable import HeraldSocketIO

@Suite struct EnginePayloadTests {
    @Test func v4PacketsAreSeparatedByTheRecordSeparator() throws {
        let text = EnginePayload.encode(["4hello", "2", "40/app,{\"sid\":\"x\"}"], version: .v4)
        #expect(text == "4hello\u{1e}2\u{1e}40/app,{\"sid\":\"x\"}")
        let packets = try EnginePayload.decode(Array(text.utf8), version: .v4)
        #expect(packets == [EnginePacket(.message, "hello"), EnginePacket(.ping), EnginePacket(.message, "0/app,{\"sid\":\"x\"}")])
    }

    @Test func v3PrefixesEachPacketWithItsLengthInUTF16Units() throws {
        // "é" is one UTF-16 unit, "😀" two: JavaScript's string length, which v3 clients count in.
        let text = EnginePayload.encode(["4é", "4😀", "2"], version: .v3)
        #expect(text == "2:4é3:4😀1:2")
        let packets = try EnginePayload.decode(Array(text.utf8), version: .v3)
        #expect(packets.map(\.data) == ["é", "😀", ""])
        #expect(packets.map(\.kind) == [.message, .message, .ping])
    }

    @Test func v3ReadsTheBinaryFormPythonEngineIO3Sends() throws {
        // 0x00, the length's digits as bytes, 0xFF, then the packet: "42[\"a\"]" is 7 bytes.
        let packet = Array("42[\"a\"]".utf8)
        let body: [UInt8] = [0x00, 7, 0xFF] + packet + [0x00, 1, 0xFF] + Array("2".utf8)
        let packets = try EnginePayload.decode(body, version: .v3)
        #expect(packets == [EnginePacket(.message, "2[\"a\"]"), EnginePacket(.ping)])
    }

    @Test(arguments: [
        ("", EngineVersion.v4), ("9x", .v4), ("4ok\u{1e}", .v4), ("5:4ab", .v3), ("x:4", .v3), ("99999999999:4", .v3), ("0:", .v3),
        ("3:4ab2", .v3),
    ])
    func malformedPayloadsAreRefused(body: String, version: EngineVersion) {
        #expect(throws: EnginePayload.Malformed.self) { try EnginePayload.decode(Array(body.utf8), version: version) }
    }

    @Test func binaryFormLengthsPastTheEndAreRefused() {
        #expect(throws: EnginePayload.Malformed.self) { try EnginePayload.decode([0x00, 9, 9, 0xFF, 0x34], version: .v3) }
        #expect(throws: EnginePayload.Malformed.self) { try EnginePayload.decode([0x00, 12, 0xFF, 0x34], version: .v3) }
        #expect(throws: EnginePayload.Malformed.self) {
            try EnginePayload.decode([0x00] + Array(repeating: 1, count: 11) + [0xFF], version: .v3)
        }
    }

    @Test func tooManyPacketsInOneBodyAreRefused() {
        let body = Array(repeating: "6", count: EnginePayload.maxPackets + 1).joined(separator: "\u{1e}")
        #expect(throws: EnginePayload.Malformed.self) { try EnginePayload.decode(Array(body.utf8), version: .v4) }
    }

    @Test func packetsReadTheirTypeDigit() {
        #expect(EnginePacket(text: "2probe") == EnginePacket(.ping, "probe"))
        #expect(EnginePacket(text: "6") == EnginePacket(.noop))
        #expect(EnginePacket(text: "7") == nil)
        #expect(EnginePacket(text: "") == nil)
        #expect(EnginePacket(text: "bAAEC")?.binary == true)
        #expect(EnginePacket(.pong, "probe").encoded == "3probe")
    }

    @Test func versionsComeFromTheQuery() {
        #expect(EngineVersion(query: "4") == .v4)
        #expect(EngineVersion(query: "3") == .v3)
        #expect(EngineVersion(query: "2") == nil)
        #expect(EngineVersion(query: nil) == nil)
        #expect(EngineVersion(query: "four") == nil)
    }
}
