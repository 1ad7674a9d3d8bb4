import HeraldCore
import Testing

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
}
