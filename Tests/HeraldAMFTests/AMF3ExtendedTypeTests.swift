import HeraldAMF
import Testing

/// The AMF3 types the Backendless SDKs never send but other Flash remoting clients may: vectors read as
/// arrays, Flex's one-value externalizable wrappers read as the value they wrap, and the rest refused.
@Suite struct AMF3ExtendedTypeTests {
    typealias T = AMFTestSupport

    /// Vector.<int> and Vector.<uint>: integers within 29 bits stay `.int`, others become doubles, which is
    /// how the encoder writes them back.
    @Test func integerVectors() throws {
        let ints: [UInt8] = [0x0D, 0x07, 0x00, 0, 0, 0, 1, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F, 0xFF, 0xFF, 0xFF]
        let expected = AMFValue.array([.int(1), .int(-1), .double(2_147_483_647)])
        #expect(try T.decode(amf3: ints) == expected)
        #expect(try T.decode(amf3: T.encode(expected)) == expected)
        let uints: [UInt8] = [0x0E, 0x05, 0x01, 0x0F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]
        #expect(try T.decode(amf3: uints) == .array([.int((1 << 28) - 1), .double(4_294_967_295)]))
    }

    @Test func doubleAndObjectVectors() throws {
        #expect(try T.decode(amf3: [0x0F, 0x03, 0x00] + T.double(0.25)) == .array([.double(0.25)]))
        // Vector.<Object> with its element type name "" and two elements.
        #expect(try T.decode(amf3: [0x10, 0x05, 0x00, 0x01, 0x06, 0x03, 0x61, 0x01]) == .array([.string("a"), .null]))
    }

    @Test func vectorReferences() throws {
        let bytes: [UInt8] = [0x09, 0x05, 0x01, 0x0F, 0x03, 0x00] + T.double(1) + [0x0F, 0x02]
        #expect(try T.decode(amf3: bytes) == .array([.array([.double(1)]), .array([.double(1)])]))
    }

    /// Externalizable traits (U29O 0x07) of Flex's ArrayCollection, ArrayList and ObjectProxy wrap one value.
    @Test(arguments: ["flex.messaging.io.ArrayCollection", "flex.messaging.io.ArrayList", "flex.messaging.io.ObjectProxy"])
    func flexWrappers(className: String) throws {
        let wrapped: [UInt8] = [0x09, 0x03, 0x01, 0x04, 0x05]
        let name = [UInt8(className.utf8.count << 1 | 1)] + Array(className.utf8)
        #expect(try T.decode(amf3: [0x0A, 0x07] + name + wrapped) == .array([.int(5)]))
        // A second one by traits reference, and a reference to the first wrapper (object 1, after the array).
        let twice: [UInt8] = [0x09, 0x07, 0x01, 0x0A, 0x07] + name + wrapped + [0x0A, 0x01] + wrapped + [0x0A, 0x02]
        #expect(try T.decode(amf3: twice) == .array([.array([.int(5)]), .array([.int(5)]), .array([.int(5)])]))
    }

    @Test func otherExternalizableClassesAreRefused() {
        let error = T.error(T.packet(amf3: [0x0A, 0x07, 0x07, 0x44, 0x53, 0x4B, 0x00]))
        #expect(error?.offset == T.prefix.count)
        #expect(error?.reason.contains("externalizable AMF3 object of class DSK") == true)
    }

    @Test func dictionariesAreRefused() {
        let error = T.error(T.packet(amf3: [0x11, 0x03, 0x00, 0x04, 0x01, 0x04, 0x02]))
        #expect(error?.reason.contains("dictionaries") == true)
    }

    @Test func unknownMarker() {
        #expect(T.error(T.packet(amf3: [0x12]))?.reason == "0x12 is not an AMF3 type marker")
    }
}
