import HeraldAMF
import Testing

/// Packets built to hurt: cut short, lying about lengths and counts, referring out of range or to
/// themselves, nested or multiplied past the limits. Each must be refused with a reason, never crash,
/// and never allocate for what its bytes cannot hold.
@Suite struct HostileInputTests {
    typealias T = AMFTestSupport

    @Test func description() {
        #expect(
            AMFDecodingError(offset: 17, reason: "a reason").description == "AMF packet unreadable at byte 17: a reason")
    }

    /// Every sample cut at every byte offset is refused, at an offset within what was given.
    @Test func truncatedAtEveryOffset() throws {
        for sample in try T.allSamples() {
            for length in 0..<sample.bytes.count {
                let error = T.error(Array(sample.bytes[..<length]))
                #expect(error != nil, "\(sample.name) cut at \(length) decoded")
                #expect((error?.offset ?? 0) <= length, "\(sample.name) cut at \(length): \(String(describing: error))")
            }
        }
    }

    @Test func stringPastTheEnd() {
        // A 40-byte packet whose string says 900 bytes (U29 1801: 0x8E 0x09).
        let bytes = T.packet(amf3: [0x06, 0x8E, 0x09] + Array(repeating: 0x61, count: 14))
        #expect(bytes.count == 40)
        #expect(
            T.error(bytes)?.description
                == "AMF packet unreadable at byte 24: an AMF3 string of 900 bytes runs past the end of the packet (14 of 40 bytes left)"
        )
    }

    /// Lengths up to AMF's largest: refused by the limit, or with the limit lifted, by the bytes left.
    @Test func hugeLengths() {
        let lifted = AMFLimits(maxStringBytes: .max)
        for value: [UInt8] in [[0x06, 0xFF, 0xFF, 0xFF, 0xFF], [0x0C, 0xFF, 0xFF, 0xFF, 0xFF], [0x0B, 0xFF, 0xFF, 0xFF, 0xFF]] {
            #expect(T.error(T.packet(amf3: value))?.reason.contains("over the limit of 1048576 bytes") == true)
            #expect(T.error(T.packet(amf3: value), limits: lifted)?.reason.contains("runs past the end") == true)
        }
        for value: [UInt8] in [[0x0C, 0xFF, 0xFF, 0xFF, 0xF0], [0x0F, 0xFF, 0xFF, 0xFF, 0xF0]] {
            #expect(T.error(T.packet(amf0: value), limits: lifted)?.reason.contains("runs past the end") == true)
        }
        #expect(T.error(T.packet(amf3: [0x06, 0x09, 0x61, 0x62]), limits: AMFLimits(maxStringBytes: 3)) != nil)
    }

    /// Counts of 2^28 − 1 and 2^32 − 1 in a few bytes: refused by the limit, or with every limit lifted, by
    /// the bytes left; nothing is reserved for them.
    @Test func hugeCounts() {
        let lifted = AMFLimits(maxValues: .max, maxCollectionCount: .max)
        let values: [[UInt8]] = [
            T.packet(amf3: [0x09, 0xFF, 0xFF, 0xFF, 0xFF, 0x01, 0x01]),  // array
            T.packet(amf3: [0x0D, 0xFF, 0xFF, 0xFF, 0xFF, 0x00, 0x01]),  // Vector.<int>
            T.packet(amf3: [0x10, 0xFF, 0xFF, 0xFF, 0xFF, 0x00, 0x01]),  // Vector.<Object>
            T.packet(amf3: [0x0A, 0xBF, 0xFF, 0xFF, 0xF3, 0x01, 0x01]),  // traits of 2^24 − 1 sealed members
            T.packet(amf0: [0x0A, 0xFF, 0xFF, 0xFF, 0xFF, 0x05]),  // strict array
            [0, 3, 0xFF, 0xFF, 0, 0],  // 65,535 headers
            [0, 3, 0, 0, 0xFF, 0xFF, 0],  // 65,535 bodies
        ]
        for bytes in values {
            #expect(T.error(bytes) != nil)
            #expect(T.error(bytes, limits: lifted)?.reason.contains("runs past the end") == true, "\(bytes)")
        }
    }

    @Test func collectionLimit() {
        let limits = AMFLimits(maxCollectionCount: 3)
        let four: [UInt8] = [0x01, 0x01, 0x01, 0x01]
        #expect(T.error(T.packet(amf3: [0x09, 0x07, 0x01] + four.dropLast()), limits: limits) == nil)
        #expect(T.error(T.packet(amf3: [0x09, 0x09, 0x01] + four), limits: limits)?.reason.contains("limit") == true)
        let dynamic: [UInt8] = [0x0A, 0x0B, 0x01, 0x03, 0x61, 0x01, 0x03, 0x62, 0x01, 0x03, 0x63, 0x01, 0x03, 0x64, 0x01, 0x01]
        #expect(T.error(T.packet(amf3: dynamic), limits: limits)?.reason.contains("more than 3 members") == true)
        let associative: [UInt8] = [0x09, 0x01, 0x03, 0x61, 0x01, 0x03, 0x62, 0x01, 0x03, 0x63, 0x01, 0x03, 0x64, 0x01, 0x01]
        #expect(T.error(T.packet(amf3: associative), limits: limits)?.reason.contains("more than 3 members") == true)
        let member: [UInt8] = [0x00, 0x01, 0x61, 0x05]
        let amf0 = [0x03] + member + member + member + member + [0x00, 0x00, 0x09]
        #expect(T.error(T.packet(amf0: amf0), limits: limits)?.reason.contains("more than 3 members") == true)
    }

    @Test(arguments: [
        ([UInt8](arrayLiteral: 0x06, 0x0A), "string reference 5"),  // no string read yet
        ([0x09, 0x03, 0x01, 0x0A, 0x06], "AMF3 object reference 3"),  // only the array itself so far
        ([0x08, 0x00], "AMF3 object reference 0"),
        ([0x0A, 0x05], "AMF3 traits reference 1"),
    ])
    func referencesOutOfRange(value: [UInt8], reason: String) {
        let error = T.error(T.packet(amf3: value))
        #expect(error?.reason.contains(reason) == true && error?.reason.contains("out of range") == true, "\(String(describing: error))")
    }

    @Test func amf0ReferenceOutOfRange() {
        #expect(T.error(T.packet(amf0: [0x0A, 0, 0, 0, 1, 0x07, 0, 2]))?.reason.contains("out of range") == true)
    }

    /// A container that refers to itself, directly or from deeper down: values cannot hold a cycle.
    @Test(arguments: [
        AMFTestSupport.packet(amf3: [0x09, 0x03, 0x01, 0x09, 0x00]),
        AMFTestSupport.packet(amf3: [0x09, 0x03, 0x01, 0x09, 0x03, 0x01, 0x09, 0x00]),
        AMFTestSupport.packet(amf3: [0x0A, 0x13, 0x01, 0x03, 0x61, 0x0A, 0x00]),
        AMFTestSupport.packet(amf3: [0x0A, 0x07, 0x43] + Array("flex.messaging.io.ArrayCollection".utf8) + [0x0A, 0x00]),
        AMFTestSupport.packet(amf0: [0x0A, 0, 0, 0, 1, 0x07, 0, 0]),
        AMFTestSupport.packet(amf0: [0x03, 0, 1, 0x61, 0x07, 0, 0, 0, 0, 0x09]),
    ])
    func cycles(bytes: [UInt8]) {
        #expect(T.error(bytes)?.reason.contains("a cycle") == true)
    }
}
