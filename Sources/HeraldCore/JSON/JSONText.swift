/// Writes JSON text by hand where a hot path builds it per recipient: a string as a JSON string literal,
/// escaped only when it has to be. Real tokens and ids have nothing to escape, so they are copied whole
/// (appending them a byte at a time cost about 9,000 instructions a message under callgrind).
public enum JSONText {
    /// Appends `text` as a JSON string, quotes included.
    public static func appendString(_ text: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        appendEscaped(text, to: &out)
        out.append(UInt8(ascii: "\""))
    }

    /// Appends `text` escaped for inside a JSON string, without quotes.
    public static func appendEscaped(_ text: String, to out: inout [UInt8]) {
        var text = text
        text.withUTF8 { bytes in
            guard bytes.contains(where: needsEscape) else {
                out.append(contentsOf: bytes)
                return
            }
            for byte in bytes {
                switch byte {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                    out.append(UInt8(ascii: "\\"))
                    out.append(byte)
                case 0..<0x20:
                    out.append(contentsOf: "\\u00".utf8)
                    out.append(hexDigits[Int(byte >> 4)])
                    out.append(hexDigits[Int(byte & 0x0f)])
                default:
                    out.append(byte)
                }
            }
        }
    }

    private static func needsEscape(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte < 0x20
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)
}
