import Foundation
import HeraldAMF

/// What the suites share: the captured samples under fixtures/amf, and packets of one AMF3 body built or
/// taken apart by hand, so a test can state the exact bytes of a value.
enum AMFTestSupport {
    /// fixtures/amf, found from this file so the tests run from any working directory.
    static let fixtures = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("fixtures/amf")

    /// Every `.amf` file of fixtures/amf/`folder` (requests or responses), by name without the extension.
    static func samples(_ folder: String) throws -> [(name: String, bytes: [UInt8])] {
        let directory = fixtures.appendingPathComponent(folder)
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            .filter { $0.hasSuffix(".amf") }.sorted()
        return try names.map { name in
            let data = try Data(contentsOf: directory.appendingPathComponent(name))
            return (String(name.dropLast(4)), [UInt8](data))
        }
    }

    /// Both folders' samples.
    static func allSamples() throws -> [(name: String, bytes: [UInt8])] {
        try samples("requests") + samples("responses")
    }

    /// The framing the SDK sends before its one body's value: version 3, no header, one body with target
    /// and response "null", length unknown, then the switch to AMF3.
    static let prefix: [UInt8] =
        [0, 3, 0, 0, 0, 1, 0, 4] + Array("null".utf8) + [0, 4] + Array("null".utf8) + [0xFF, 0xFF, 0xFF, 0xFF, 0x11]

    /// A packet of one body whose value is `amf3` (the bytes after the switch marker).
    static func packet(amf3: [UInt8]) -> [UInt8] { prefix + amf3 }

    /// A packet of one body whose AMF0 value is `amf0`.
    static func packet(amf0: [UInt8]) -> [UInt8] { Array(prefix.dropLast()) + amf0 }

    /// The value of a packet of one AMF3 body.
    static func decode(amf3: [UInt8], limits: AMFLimits = AMFLimits()) throws(AMFDecodingError) -> AMFValue {
        try AMFPacket(decoding: packet(amf3: amf3), limits: limits).messages[0].value
    }

    static func decode(amf0: [UInt8]) throws(AMFDecodingError) -> AMFValue {
        try AMFPacket(decoding: packet(amf0: amf0)).messages[0].value
    }

    /// The AMF3 bytes the encoder writes for `value` as a body (after the framing and the switch marker).
    static func encode(_ value: AMFValue) -> [UInt8] {
        let bytes = AMFPacket(messages: [AMFMessage(targetURI: "null", responseURI: "null", value: value)]).encoded()
        return Array(bytes[prefix.count...])
    }

    /// The error a decoding throws, nil if it decodes.
    static func error(_ bytes: [UInt8], limits: AMFLimits = AMFLimits()) -> AMFDecodingError? {
        do {
            _ = try AMFPacket(decoding: bytes, limits: limits)
            return nil
        } catch {
            return error
        }
    }

    /// A string's inline AMF3 form (length below 64 bytes).
    static func string(_ text: String) -> [UInt8] {
        [UInt8(text.utf8.count << 1 | 1)] + Array(text.utf8)
    }

    /// A double's eight big-endian bytes.
    static func double(_ number: Double) -> [UInt8] {
        (0..<8).map { UInt8(truncatingIfNeeded: number.bitPattern >> (56 - 8 * $0)) }
    }

    /// Equality that takes a NaN for itself (`==` does not), for values decoded from arbitrary bytes.
    static func same(_ lhs: AMFPacket, _ rhs: AMFPacket) -> Bool {
        lhs == rhs || lhs.encoded() == rhs.encoded()
    }
}
