import HeraldAMF
import Testing

/// Depth and value-count bombs: refused at the limit, before the decoder's recursion or the value's size
/// can hurt. References count at the size and depth of what they copy.
@Suite struct LimitBombTests {
    typealias T = AMFTestSupport

    /// 32 nested arrays decode; 33 are refused, and so are 10,000, without exhausting the stack.
    @Test func depthBomb() {
        func nested(_ depth: Int) -> [UInt8] {
            Array([[UInt8]](repeating: [0x09, 0x03, 0x01], count: depth).joined()) + [0x01]
        }
        #expect(T.error(T.packet(amf3: nested(32))) == nil)
        let error = T.error(T.packet(amf3: nested(33)))
        #expect(error == AMFDecodingError(offset: 23 + 32 * 3, reason: "values are nested more than 32 deep (the limit)"))
        #expect(T.error(T.packet(amf3: nested(10_000)))?.reason.contains("nested more than 32 deep") == true)
        let amf0 = Array([[UInt8]](repeating: [0x0A, 0, 0, 0, 1], count: 10_000).joined()) + [0x05]
        #expect(T.error(T.packet(amf0: amf0))?.reason.contains("nested more than 32 deep") == true)
        // Objects of one class, each the next one's only member: traits by reference after the first.
        let objects = [0x0A, 0x13, 0x01, 0x03, 0x61] + Array([[UInt8]](repeating: [0x0A, 0x01], count: 10_000).joined())
        #expect(T.error(T.packet(amf3: objects + [0x01]))?.reason.contains("nested more than 32 deep") == true)
    }

    /// A 20-deep array referred to from 20 levels down would be 40 deep: refused.
    @Test func depthThroughReferences() {
        let deep = Array([[UInt8]](repeating: [0x09, 0x03, 0x01], count: 20).joined()) + [0x01]
        // [deep, [[…20 levels…[reference 1]…]]]: object 1 is `deep` (object 0 is the outer array).
        let holder = Array([[UInt8]](repeating: [0x09, 0x03, 0x01], count: 20).joined()) + [0x09, 0x02]
        let bytes = [0x09, 0x05, 0x01] + deep + holder
        #expect(T.error(T.packet(amf3: bytes))?.reason.contains("nests values more than 32 deep") == true)
        #expect(T.error(T.packet(amf3: bytes), limits: AMFLimits(maxDepth: 64)) == nil)
    }

    /// Each array holds two references to the one before: 150 bytes that stand for millions of values.
    @Test func doublingBomb() {
        var bytes: [UInt8] = [0x09, 0x2B, 0x01, 0x09, 0x05, 0x01, 0x04, 0x01, 0x04, 0x01]
        for index in 1...20 { bytes += [0x09, 0x05, 0x01, 0x09, UInt8(index << 1), 0x09, UInt8(index << 1)] }
        #expect(T.error(T.packet(amf3: bytes))?.reason == "the packet holds more than 100000 values (the limit)")
    }

    /// A thousand references to an array of a thousand integers: a million values.
    @Test func wideBomb() {
        let thousand: [UInt8] = [0x09, 0x8F, 0x51, 0x01]  // U29 2001: 1,000 dense elements
        let integers = thousand + Array([[UInt8]](repeating: [0x04, 0x07], count: 1000).joined())
        let references = thousand + Array([[UInt8]](repeating: [0x09, 0x02], count: 1000).joined())
        let bytes = [0x09, 0x05, 0x01] + integers + references
        #expect(T.error(T.packet(amf3: bytes))?.reason.contains("more than 100000 values") == true)
        #expect(T.error(T.packet(amf3: [0x09, 0x05, 0x01] + integers + [0x09, 0x02])) == nil)
    }

    /// A count beyond the values left is refused before anything is reserved.
    @Test func valueLimitOnCounts() {
        let limits = AMFLimits(maxValues: 10)
        let nulls = [UInt8](repeating: 0x01, count: 10)
        #expect(T.error(T.packet(amf3: [0x09, 0x13, 0x01] + nulls.dropLast()), limits: limits) == nil)
        #expect(T.error(T.packet(amf3: [0x09, 0x15, 0x01] + nulls), limits: limits)?.reason.contains("past 10 values") == true)
    }
}
