import HeraldAMF
import Testing

/// AMF3's three reference tables: strings, objects (with dates, arrays, byte arrays, XML) and traits.
@Suite struct AMF3ReferenceTests {
    typealias T = AMFTestSupport

    /// The second "abc" is string reference 0; the empty string never enters the table.
    @Test func stringReferences() throws {
        let value = AMFValue.array([.string(""), .string("abc"), .string(""), .string("abc")])
        let bytes: [UInt8] = [0x09, 0x09, 0x01, 0x06, 0x01, 0x06, 0x07, 0x61, 0x62, 0x63, 0x06, 0x01, 0x06, 0x00]
        #expect(T.encode(value) == bytes)
        #expect(try T.decode(amf3: bytes) == value)
    }

    /// Class names and member names share the string table with values.
    @Test func memberNamesAreStringReferences() throws {
        let object = AMFObject(className: "x", members: [AMFMember("x", .string("x"))])
        // U29O 0x13 (one sealed member), class "x" inline, then the name and the value as reference 0.
        let bytes: [UInt8] = [0x0A, 0x13, 0x03, 0x78, 0x00, 0x06, 0x00]
        #expect(T.encode(.object(object)) == bytes)
        #expect(try T.decode(amf3: bytes) == .object(object))
    }

    /// The second object of the same class and members refers to the first one's traits (U29O 0x01).
    @Test func traitsReferences() throws {
        let first = AMFObject(className: "", members: [AMFMember("x", .int(1))])
        let second = AMFObject(className: "", members: [AMFMember("x", .int(2))])
        let bytes: [UInt8] = [0x09, 0x05, 0x01, 0x0A, 0x13, 0x01, 0x03, 0x78, 0x04, 0x01, 0x0A, 0x01, 0x04, 0x02]
        #expect(T.encode(.array([.object(first), .object(second)])) == bytes)
        #expect(try T.decode(amf3: bytes) == .array([.object(first), .object(second)]))
    }

    /// Same class but another traits kind or member list is other traits: written inline again.
    @Test func differentTraitsAreWrittenAgain() throws {
        let value = AMFValue.array([
            .object(AMFObject(members: [AMFMember("x", .int(1))])),
            .object(AMFObject(members: [AMFMember("x", .int(1))], isDynamic: true)),
            .object(AMFObject(members: [AMFMember("y", .int(1))])),
        ])
        let bytes: [UInt8] =
            [0x09, 0x07, 0x01] + [0x0A, 0x13, 0x01, 0x03, 0x78, 0x04, 0x01]
            + [0x0A, 0x0B, 0x01, 0x00, 0x04, 0x01, 0x01] + [0x0A, 0x13, 0x01, 0x03, 0x79, 0x04, 0x01]
        #expect(T.encode(value) == bytes)
        #expect(try T.decode(amf3: bytes) == value)
    }

    /// An object reference (U29O 0x02: index 1; the array itself is index 0) reads as a copy.
    @Test func objectReferences() throws {
        let object = AMFValue.object(AMFObject(members: [AMFMember("k", .int(7))], isDynamic: true))
        let bytes: [UInt8] = [0x09, 0x05, 0x01, 0x0A, 0x0B, 0x01, 0x03, 0x6B, 0x04, 0x07, 0x01, 0x0A, 0x02]
        #expect(try T.decode(amf3: bytes) == .array([object, object]))
    }

    /// Dates, byte arrays, XML and arrays are in the object table too, numbered in the order they start.
    @Test func otherObjectReferences() throws {
        let bytes: [UInt8] =
            [0x09, 0x11, 0x01]  // array of 8: object 0
            + [0x08, 0x01] + T.double(5)  // date: object 1
            + [0x0C, 0x03, 0xAA]  // byte array: object 2
            + [0x0B, 0x03, 0x78]  // XML: object 3
            + [0x09, 0x03, 0x01, 0x04, 0x01]  // array [1]: object 4
            + [0x08, 0x02, 0x0C, 0x04, 0x0B, 0x06, 0x09, 0x08]  // references to 1, 2, 3 and 4
        let expected: [AMFValue] = [.date(5), .bytes([0xAA]), .xml("x"), .array([.int(1)])]
        #expect(try T.decode(amf3: bytes) == .array(expected + expected))
    }

    /// Every switch to AMF3 starts the tables anew: a reference into the previous body's table is refused,
    /// and the encoder writes the second body's string again.
    @Test func tablesStartAnewAtEachSwitch() throws {
        func body(length: [UInt8], _ value: [UInt8]) -> [UInt8] {
            [0x00, 0x01, 0x61, 0x00, 0x01, 0x61] + length + [0x11, 0x06] + value
        }
        let unknown: [UInt8] = [0xFF, 0xFF, 0xFF, 0xFF]
        let two = [0, 3, 0, 0, 0, 2] + body(length: unknown, [0x03, 0x61]) + body(length: unknown, [0x03, 0x61])
        #expect(try AMFPacket(decoding: two).messages.map(\.value) == [.string("a"), .string("a")])
        let referring = [0, 3, 0, 0, 0, 2] + body(length: unknown, [0x03, 0x61]) + body(length: unknown, [0x00])
        #expect(T.error(referring)?.reason.contains("string reference 0, out of range") == true)
        let packet = AMFPacket(messages: [
            AMFMessage(targetURI: "a", responseURI: "a", value: .string("a")),
            AMFMessage(targetURI: "a", responseURI: "a", value: .string("a")),
        ])
        let real: [UInt8] = [0, 0, 0, 4]
        #expect(packet.encoded() == [0, 3, 0, 0, 0, 2] + body(length: real, [0x03, 0x61]) + body(length: real, [0x03, 0x61]))
    }
}
