import HeraldAMF
import Testing

/// AMF0's forms, which the packet framing uses and which other clients (and Py3AMF's AMF0 mode) send as
/// values; the encoder answers in AMF3 only, so each is checked by decoding.
@Suite struct AMF0ValueTests {
    typealias T = AMFTestSupport

    /// AMF0's UTF-8 string with a 16-bit length.
    func utf(_ text: String) -> [UInt8] { [0, UInt8(text.utf8.count)] + Array(text.utf8) }

    static let end: [UInt8] = [0x00, 0x00, 0x09]

    @Test func scalars() throws {
        #expect(try T.decode(amf0: [0x00] + T.double(2.5)) == .double(2.5))
        #expect(try T.decode(amf0: [0x01, 0x01]) == .bool(true))
        #expect(try T.decode(amf0: [0x01, 0x00]) == .bool(false))
        #expect(try T.decode(amf0: [0x02] + utf("héllo")) == .string("héllo"))
        #expect(try T.decode(amf0: [0x05]) == .null)
        #expect(try T.decode(amf0: [0x06]) == .undefined)
        #expect(try T.decode(amf0: [0x0B] + T.double(86_400_000) + [0, 0]) == .date(86_400_000))
        #expect(try T.decode(amf0: [0x0C, 0, 0, 0, 3] + Array("abc".utf8)) == .string("abc"))
        #expect(try T.decode(amf0: [0x0F, 0, 0, 0, 4] + Array("<a/>".utf8)) == .xml("<a/>"))
    }

    /// An anonymous object reads as dynamic, a typed one as sealed; both keep their members' order.
    @Test func objects() throws {
        let members = [AMFMember("b", .double(1)), AMFMember("a", .null)]
        let body = utf("b") + [0x00] + T.double(1) + utf("a") + [0x05] + Self.end
        #expect(try T.decode(amf0: [0x03] + body) == .object(AMFObject(members: members, isDynamic: true)))
        #expect(
            try T.decode(amf0: [0x10] + utf("com.example.Foo") + body)
                == .object(AMFObject(className: "com.example.Foo", members: members)))
    }

    /// An ECMA array's members become the associative part; its count is only a hint.
    @Test func ecmaArray() throws {
        let bytes: [UInt8] = [0x08, 0, 0, 0, 9] + utf("0") + [0x02] + utf("x") + Self.end
        #expect(try T.decode(amf0: bytes) == .array([], associative: [AMFMember("0", .string("x"))]))
    }

    @Test func strictArrayAndReferences() throws {
        let object: [UInt8] = [0x03] + utf("k") + [0x01, 0x01] + Self.end
        // [object, [reference 0, reference 1]]: the outer array is reference 0, the object 1.
        let bytes: [UInt8] =
            [0x0A, 0, 0, 0, 2] + object + [0x0A, 0, 0, 0, 2, 0x07, 0, 1, 0x07, 0, 1]
        let copy = AMFValue.object(AMFObject(members: [AMFMember("k", .bool(true))], isDynamic: true))
        #expect(try T.decode(amf0: bytes) == .array([copy, .array([copy, copy])]))
    }

    /// A value switched to AMF3 inside an AMF0 array, as a Request's arguments arrive; each switch has its
    /// own tables, so the second element cannot refer to the first one's string.
    @Test func switchInsideAMF0() throws {
        let bytes: [UInt8] = [0x0A, 0, 0, 0, 2, 0x11, 0x06, 0x03, 0x61, 0x11, 0x06, 0x03, 0x61]
        #expect(try T.decode(amf0: bytes) == .array([.string("a"), .string("a")]))
        let referring: [UInt8] = [0x0A, 0, 0, 0, 2, 0x11, 0x06, 0x03, 0x61, 0x11, 0x06, 0x00]
        #expect(T.error(T.packet(amf0: referring)) != nil)
    }

    @Test(arguments: [UInt8(0x04), 0x0D, 0x0E, 0x09, 0x12, 0xFF])
    func refusedMarkers(marker: UInt8) {
        let error = T.error(T.packet(amf0: [marker, 0, 0, 0, 0]))
        #expect(error?.offset == T.prefix.count - 1)
    }

    @Test func emptyNameWithoutObjectEnd() {
        #expect(T.error(T.packet(amf0: [0x03, 0x00, 0x00, 0x05]))?.reason.contains("object-end") == true)
    }

    /// Headers, several bodies and URIs; a header's must-understand flag.
    @Test func packetFraming() throws {
        let bytes: [UInt8] =
            [0, 0, 0, 1] + utf("Credentials") + [1, 0xFF, 0xFF, 0xFF, 0xFF, 0x05]
            + [0, 2] + utf("svc.op") + utf("/1") + [0, 0, 0, 0, 0x05] + utf("/1/onResult") + utf("null")
            + [0, 0, 0, 2, 0x01, 0x01]
        let packet = try AMFPacket(decoding: bytes)
        #expect(packet.version == 0)
        #expect(packet.headers == [AMFHeader(name: "Credentials", mustUnderstand: true, value: .null)])
        #expect(
            packet.messages == [
                AMFMessage(targetURI: "svc.op", responseURI: "/1", value: .null),
                AMFMessage(targetURI: "/1/onResult", responseURI: "null", value: .bool(true)),
            ])
        #expect(try AMFPacket(decoding: packet.encoded()) == packet)
    }

    /// The body length is not checked: the SDKs send 0xFFFFFFFF, Py3AMF 0, Flash the real length, and
    /// BlazeDS reads past it too.
    @Test func bodyLengthIsAHint() throws {
        for length: [UInt8] in [[0, 0, 0, 0], [0, 0, 0, 1], [0xFF, 0xFF, 0xFF, 0xFF], [0x7F, 0, 0, 0]] {
            let bytes = [0, 3, 0, 0, 0, 1] + utf("a") + utf("b") + length + [0x05]
            #expect(try AMFPacket(decoding: bytes).messages[0].value == .null)
        }
    }

    @Test func bytesAfterTheLastBodyAreRefused() {
        let error = T.error(T.packet(amf0: [0x05, 0x05]))
        #expect(error == AMFDecodingError(offset: 23, reason: "1 byte follows the last body (a packet ends with its last body)"))
    }
}
