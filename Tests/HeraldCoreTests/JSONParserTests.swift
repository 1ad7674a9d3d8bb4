import Foundation
import HeraldCore
import Testing

/// The hand-written parser must agree with Foundation's on every valid document and refuse invalid ones.
@Suite struct JSONParserTests {
    func parse(_ text: String) -> JSONValue? { try? JSONValue.parse(Array(text.utf8)) }

    func foundation(_ text: String) -> JSONValue? { try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8)) }

    @Test(arguments: [
        #"{"deviceToken": "a1b2", "deviceId": "5A9F", "channels": ["default", "news"], "expiration": 1893477600000}"#,
        #"{"a": null, "b": true, "c": false, "d": -0, "e": 12.5, "f": -3e2, "g": 1E-2, "h": [], "i": {}}"#,
        #"[1, [2, [3, [4]]], {"x": {"y": {"z": "deep"}}}]"#,
        #""escapes \" \\ \/ \b \f \n \r \t \u00e9 \ud83d\ude00 end""#,
        "  {\"spaced\" :\t\"out\" }\n  ",
        #"9223372036854775807"#,
        #"9223372036854775808"#,
        #""ünïcødé 🙂""#,
    ])
    func agreesWithFoundation(_ text: String) throws {
        let ours = try #require(parse(text))
        #expect(ours == foundation(text))
    }

    @Test(arguments: [
        "", " ", "{", "}", "[1,]", "{\"a\":1,}", "{'a': 1}", "{\"a\" 1}", "01", "1.", ".5", "-", "1e", "+1",
        "tru", "nul", "\"unterminated", "\"bad \\x escape\"", "\"\\ud800\"", "\"ctrl \u{01}\"", "[1] [2]", "1e400",
        "{\"a\":1} x", "\"\\u12\"",
    ])
    func refusesInvalidDocuments(_ text: String) {
        #expect(parse(text) == nil, "accepted \(text.debugDescription)")
    }

    /// Two values for one key are a client bug, and a proxy and Herald could read different ones: 8008
    /// naming the key, at any depth; the same key in two objects is fine.
    @Test func aRepeatedKeyIsRefusedNamingIt() throws {
        for text in [#"{"deviceId":"a","deviceId":"b"}"#, #"{"message": {"alert": 1, "badge": 2, "alert": 3}}"#] {
            #expect(throws: HeraldFault.self) { try JSONValue.parse(Array(text.utf8)) }
            do {
                _ = try JSONValue.parse(Array(text.utf8))
            } catch {
                #expect(error.code == 8008)
                #expect(error.message.contains("'deviceId'") || error.message.contains("'alert'"), "\(error.message)")
            }
        }
        #expect(parse(#"[{"a": 1}, {"a": 2}]"#) != nil)
        let located = #expect(throws: JSONSyntaxError.self) { try JSONValue.parseDocument(Array("{\n \"port\": 1,\n \"port\": 2}".utf8)) }
        #expect(located?.line == 3)
        #expect(located?.description.contains("the key 'port' appears twice") == true)
    }

    @Test func refusesInvalidUTF8() {
        #expect((try? JSONValue.parse([0x22, 0xFF, 0xFE, 0x22])) == nil)
    }

    @Test func limitsNesting() {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(parse(deep) == nil, "a hostile body must not exhaust the stack")
        let fine = String(repeating: "[", count: 60) + String(repeating: "]", count: 60)
        #expect(parse(fine) != nil)
    }
}
