/// Reads one packet: a cursor over its bytes, the limits and how much of them has been spent, and the
/// reference tables of the value being read. Every read checks the bytes left first, so a cut or lying
/// packet fails with the offset of the field instead of reading past the end.
///
/// Internal: callers use `AMFPacket(decoding:limits:)`. The buffer is only valid inside the
/// `withUnsafeBufferPointer` call that made the decoder, which never lets it escape.
struct AMFDecoder {
    /// A value in a reference table: nil while it is still being read (so a reference to it is a cycle),
    /// with the values it holds beyond itself and its height, which a reference to it spends again.
    struct Entry {
        var value: AMFValue?
        var count: Int
        var height: Int
    }

    /// An AMF3 object's traits as read: referenced by later objects of the same shape.
    struct Traits {
        var className: String
        var sealed: [String]
        var isDynamic: Bool
        var isExternalizable: Bool
    }

    /// What `descend` saved, for `ascend` to measure the container just read.
    struct Mark {
        var values: Int
        var deepest: Int
    }

    let bytes: UnsafeBufferPointer<UInt8>
    let limits: AMFLimits
    var offset = 0
    /// Values read so far in the whole packet, references counted at the size of what they copy.
    var valueCount = 0
    /// Containers open around the read position, and the deepest level reached inside the current one.
    var depth = 0
    var deepest = 0
    /// AMF0's table of objects and arrays, per header or body value.
    var amf0Objects: [Entry] = []
    /// AMF3's three tables, emptied at each switch from AMF0 to AMF3.
    var strings: [String] = []
    var objects: [Entry] = []
    var traits: [Traits] = []

    init(bytes: UnsafeBufferPointer<UInt8>, limits: AMFLimits) {
        self.bytes = bytes
        self.limits = limits
    }

    var remaining: Int { bytes.count - offset }

    func failure(_ reason: String, at start: Int) -> AMFDecodingError {
        AMFDecodingError(offset: start, reason: reason)
    }

    /// Refuses a field of `count` bytes that the packet does not hold.
    func need(_ count: Int, for what: @autoclosure () -> String, at start: Int) throws(AMFDecodingError) {
        guard count > remaining else { return }
        throw failure("\(what()) runs past the end of the packet (\(remaining) of \(bytes.count) bytes left)", at: start)
    }

    mutating func readU8(_ what: @autoclosure () -> String) throws(AMFDecodingError) -> UInt8 {
        try need(1, for: what(), at: offset)
        defer { offset += 1 }
        return bytes[offset]
    }

    mutating func readU16(_ what: @autoclosure () -> String) throws(AMFDecodingError) -> UInt16 {
        try need(2, for: what(), at: offset)
        defer { offset += 2 }
        return UInt16(bytes[offset]) << 8 | UInt16(bytes[offset + 1])
    }

    mutating func readU32(_ what: @autoclosure () -> String) throws(AMFDecodingError) -> UInt32 {
        try need(4, for: what(), at: offset)
        var result: UInt32 = 0
        for index in offset..<offset + 4 { result = result << 8 | UInt32(bytes[index]) }
        offset += 4
        return result
    }

    mutating func readDouble(_ what: @autoclosure () -> String) throws(AMFDecodingError) -> Double {
        try need(8, for: what(), at: offset)
        var bits: UInt64 = 0
        for index in offset..<offset + 8 { bits = bits << 8 | UInt64(bytes[index]) }
        offset += 8
        return Double(bitPattern: bits)
    }

    /// AMF3's variable-length unsigned 29-bit integer: up to three bytes of 7 bits with a continuation bit,
    /// then a fourth of 8 bits.
    mutating func readU29(_ what: @autoclosure () -> String) throws(AMFDecodingError) -> UInt32 {
        let start = offset
        var result: UInt32 = 0
        for _ in 0..<3 {
            guard offset < bytes.count else { break }
            let byte = bytes[offset]
            offset += 1
            if byte & 0x80 == 0 { return result << 7 | UInt32(byte) }
            result = result << 7 | UInt32(byte & 0x7F)
        }
        guard offset < bytes.count else {
            throw failure("\(what()) (a variable-length integer) runs past the end of the packet", at: start)
        }
        defer { offset += 1 }
        return result << 8 | UInt32(bytes[offset])
    }

    /// `count` bytes of UTF-8 text; invalid sequences become U+FFFD replacement characters (not refused:
    /// the text is data for the app, and re-encoding it gives the same string).
    mutating func readUTF8(_ count: Int, _ what: @autoclosure () -> String, at start: Int) throws(AMFDecodingError) -> String {
        try checkTextLength(count, what(), at: start)
        defer { offset += count }
        return String(decoding: UnsafeBufferPointer(rebasing: bytes[offset..<offset + count]), as: UTF8.self)
    }

    mutating func readRaw(_ count: Int, _ what: @autoclosure () -> String, at start: Int) throws(AMFDecodingError) -> [UInt8] {
        try checkTextLength(count, what(), at: start)
        defer { offset += count }
        return Array(bytes[offset..<offset + count])
    }

    private func checkTextLength(_ count: Int, _ what: @autoclosure () -> String, at start: Int) throws(AMFDecodingError) {
        guard count <= limits.maxStringBytes else {
            throw failure("\(what()) of \(count) bytes is over the limit of \(limits.maxStringBytes) bytes", at: start)
        }
        try need(count, for: "\(what()) of \(count) bytes", at: start)
    }
}
