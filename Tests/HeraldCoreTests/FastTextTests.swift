import Foundation
import HeraldCore
import Testing

@Suite struct FastTextTests {
    @Test func aUUIDsLowercasedTextIsFoundationsStringLowercased() {
        for _ in 0..<1_000 {
            let uuid = UUID()
            #expect(uuid.lowercasedText == uuid.uuidString.lowercased())
        }
        let fixed = UUID(uuidString: "00FF10A0-B1C2-D3E4-F506-0718293A4B5C")!
        #expect(fixed.lowercasedText == "00ff10a0-b1c2-d3e4-f506-0718293a4b5c")
    }

    @Test func allUTF8BytesLooksAtEveryByteOfNativeAndBridgedStrings() {
        #expect("abc123".allUTF8Bytes { $0 < 0x80 })
        #expect(!"abcé".allUTF8Bytes { $0 < 0x80 }, "é is two bytes over 0x7F")
        #expect("".allUTF8Bytes { _ in false }, "nothing to fail")
        let substring = "xxabcxx".dropFirst(2).dropLast(2)
        #expect(String(substring).allUTF8Bytes { $0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "c") })
        #expect(!"tab\there".allUTF8Bytes { $0 >= 0x20 })
    }
}
