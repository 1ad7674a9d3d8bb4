import Testing

@testable import HeraldCore

@Suite struct JSONTextTests {
    /// Whatever the text, what is written parses back to it, and text with nothing to escape is copied as is.
    @Test(arguments: ["", "plain-token_0123:APA91b", "a \"quoted\" word", "back\\slash", "tab\there\nnewline\u{1}", "é ✓ 日本", "\u{7F}del"])
    func aStringWrittenParsesBackToItself(_ text: String) throws {
        var out: [UInt8] = []
        JSONText.appendString(text, to: &out)
        #expect(try JSONValue.parse(out) == .string(text))
        if !text.utf8.contains(where: { $0 == 0x22 || $0 == 0x5C || $0 < 0x20 }) {
            #expect(out == Array("\"\(text)\"".utf8), "copied whole")
        }
    }

    @Test func escapesAreTheShortOnesAndUnicodeForControls() {
        var out: [UInt8] = []
        JSONText.appendEscaped("\"\\\u{1F}", to: &out)
        #expect(String(decoding: out, as: UTF8.self) == #"\"\\\u001f"#)
    }

    /// The word-at-a-time scan finds each byte that needs escaping at every position of a word and in
    /// the tail, and reports none where there is none (bytes next to the escaped ones included).
    @Test func theScanFindsEveryByteThatNeedsEscapingWherever() {
        let plain = Array("abcdefghijklmnopqrstuvwxyz0123456789:_-ABCDEFGHIJKLMNOP!#$%&'()*+,./;<=>?@[]^`{|}~ \u{7F}".utf8)
        let all: [UInt8] = [0x22, 0x5C] + Array(0..<0x20)
        for length in 0...plain.count {
            let clean = Array(plain.prefix(length))
            #expect(!clean.withUnsafeBufferPointer(JSONText.needsEscape), "\(length) plain bytes")
            for position in 0..<length {
                for byte in all {
                    var dirty = clean
                    dirty[position] = byte
                    #expect(dirty.withUnsafeBufferPointer(JSONText.needsEscape), "byte \(byte) at \(position) of \(length)")
                }
            }
        }
        // Neighbours of the escaped bytes, and bytes with the high bit, are not escaped.
        let near: [UInt8] = [0x20, 0x21, 0x23, 0x5B, 0x5D, 0x60, 0x7F, 0x80, 0xA2, 0xDC, 0xE0, 0xFF]
        #expect(!(near + near).withUnsafeBufferPointer(JSONText.needsEscape))
    }
}
