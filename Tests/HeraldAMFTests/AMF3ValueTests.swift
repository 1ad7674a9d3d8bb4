import HeraldAMF
import Testing

/// Each AMF3 marker both ways: the encoder's exact bytes, and those bytes decoded back to the value.
@Suite struct AMF3ValueTests {
    typealias T = AMFTestSupport

    /// Writes `value`, expects `bytes`, and reads `bytes` back as `value`.
    func both(_ value: AMFValue, _ bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(T.encode(value) == bytes, sourceLocation: sourceLocation)
        #expect(try T.decode(amf3: bytes) == value, sourceLocation: sourceLocation)
    }

    @Test func scalars() throws {
        try both(.undefined, [0x00])
        try both(.null, [0x01])
        try both(.bool(false), [0x02])
        try both(.bool(true), [0x03])
        try both(.double(1.5), [0x05] + T.double(1.5))
        try both(.double(-0.0), [0x05, 0x80, 0, 0, 0, 0, 0, 0, 0])
        try both(.double(.infinity), [0x05] + T.double(.infinity))
        try both(.string(""), [0x06, 0x01])
        try both(.string("abc"), [0x06, 0x07, 0x61, 0x62, 0x63])
        try both(.string("é"), [0x06, 0x05, 0xC3, 0xA9])
        try both(.date(1_893_456_000_000), [0x08, 0x01, 0x42, 0x7B, 0x8D, 0xAC, 0x5B, 0x40, 0x00, 0x00])
        try both(.bytes([1, 2, 3]), [0x0C, 0x07, 1, 2, 3])
        try both(.bytes([]), [0x0C, 0x01])
        try both(.xml("<a/>"), [0x0B, 0x09] + Array("<a/>".utf8))
    }

    /// U29 at every width's edges: each value with its bytes after the integer marker.
    static let u29Edges: [(Int32, [UInt8])] = [
        (0, [0x00]), (127, [0x7F]), (128, [0x81, 0x00]), (16383, [0xFF, 0x7F]), (16384, [0x81, 0x80, 0x00]),
        (2_097_151, [0xFF, 0xFF, 0x7F]), (2_097_152, [0x80, 0xC0, 0x80, 0x00]),
        ((1 << 28) - 1, [0xBF, 0xFF, 0xFF, 0xFF]), (-1, [0xFF, 0xFF, 0xFF, 0xFF]),
        (-(1 << 28), [0xC0, 0x80, 0x80, 0x00]),
    ]

    @Test(arguments: u29Edges)
    func integers(value: Int32, u29: [UInt8]) throws {
        try both(.int(value), [0x04] + u29)
    }

    /// Integers past 29 bits are written as doubles, and so read back.
    @Test(arguments: [Int32(1 << 28), -(1 << 28) - 1, .max, .min])
    func integersPast29BitsAreDoubles(value: Int32) throws {
        #expect(T.encode(.int(value)) == [0x05] + T.double(Double(value)))
        #expect(try T.decode(amf3: T.encode(.int(value))) == .double(Double(value)))
    }

    /// XMLDocument (0x07) reads as XML too; the encoder writes the E4X form (0x0B).
    @Test func xmlDocument() throws {
        #expect(try T.decode(amf3: [0x07, 0x09] + Array("<a/>".utf8)) == .xml("<a/>"))
    }

    @Test func arrays() throws {
        try both(.array([]), [0x09, 0x01, 0x01])
        try both(.array([.int(1), .null]), [0x09, 0x05, 0x01, 0x04, 0x01, 0x01])
        try both(
            .array([.int(1)], associative: [AMFMember("a", .string("b"))]),
            [0x09, 0x03, 0x03, 0x61, 0x06, 0x03, 0x62, 0x01, 0x04, 0x01])
        try both(
            .array([.array([.array([])])]), [0x09, 0x03, 0x01, 0x09, 0x03, 0x01, 0x09, 0x01, 0x01])
    }

    /// An associative member named "" cannot be written (the name ends the part): the encoder leaves it out.
    @Test func emptyAssociativeNameIsLeftOut() {
        #expect(T.encode(.array([], associative: [AMFMember("", .null)])) == [0x09, 0x01, 0x01])
    }

    @Test func sealedObject() throws {
        let object = AMFObject(className: "a.B", members: [AMFMember("x", .int(1)), AMFMember("y", .null)])
        // U29O 0x23: two sealed members (2 << 4), not dynamic, traits inline (0b11).
        try both(
            .object(object), [0x0A, 0x23, 0x07] + Array("a.B".utf8) + [0x03, 0x78, 0x03, 0x79, 0x04, 0x01, 0x01])
    }

    @Test func dynamicObject() throws {
        let object = AMFObject(members: [AMFMember("x", .int(1))], isDynamic: true)
        // U29O 0x0B: no sealed member, dynamic; anonymous; then x = 1 and the empty name that ends the members.
        try both(.object(object), [0x0A, 0x0B, 0x01, 0x03, 0x78, 0x04, 0x01, 0x01])
        try both(.object(AMFObject(isDynamic: true)), [0x0A, 0x0B, 0x01, 0x01])
        try both(.object(AMFObject()), [0x0A, 0x03, 0x01])
    }

    /// Dynamic traits with sealed members read as one dynamic object, members in the order they came.
    @Test func dynamicObjectWithSealedMembers() throws {
        let bytes: [UInt8] = [0x0A, 0x1B, 0x01, 0x03, 0x61, 0x04, 0x01, 0x03, 0x62, 0x04, 0x02, 0x01]
        let expected = AMFObject(members: [AMFMember("a", .int(1)), AMFMember("b", .int(2))], isDynamic: true)
        #expect(try T.decode(amf3: bytes) == .object(expected))
        #expect(try T.decode(amf3: T.encode(.object(expected))) == .object(expected))
    }

    /// A member named "" would end a dynamic object's list: it and those before it are written sealed, so
    /// the object reads back the same.
    @Test func dynamicObjectWithEmptyMemberName() throws {
        let object = AMFObject(
            members: [AMFMember("a", .int(1)), AMFMember("", .int(2)), AMFMember("c", .int(3))], isDynamic: true)
        #expect(try T.decode(amf3: T.encode(.object(object))) == .object(object))
    }

    @Test func nested() throws {
        let inner = AMFObject(className: "In", members: [AMFMember("when", .date(0)), AMFMember("raw", .bytes([9]))])
        let value = AMFValue.array(
            [.object(AMFObject(members: [AMFMember("list", .array([.object(inner), .string("s")]))], isDynamic: true))],
            associative: [AMFMember("k", .object(inner))])
        #expect(try T.decode(amf3: T.encode(value)) == value)
    }
}
