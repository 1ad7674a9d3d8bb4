import Foundation

/// base64url without padding, as JWS (JWT) wants it; shared by every provider's token signing.
public enum Base64URL {
    public static func encode(_ bytes: [UInt8]) -> String {
        var text = Data(bytes).base64EncodedString()
        text = text.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        while text.hasSuffix("=") { text.removeLast() }
        return text
    }

    /// The bytes of base64url text, padded or not; nil when it is not base64url (standard base64's `+`
    /// and `/` are refused, as a browser never sends them in a subscription's keys, and so is padding
    /// other than up to two trailing `=`). Decoded by hand: a Web Push send decodes its subscription's two keys, and
    /// Foundation's string replacements cost that a tenth of the sender's thread (BENCHMARKS.md section 29).
    public static func decode(_ text: String) -> [UInt8]? {
        var text = text
        return text.withUTF8 { decode(utf8: $0) }
    }

    private static func decode(utf8: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        var length = utf8.count
        while length > 0 && utf8[length - 1] == UInt8(ascii: "=") && utf8.count - length < 2 { length -= 1 }
        if length % 4 == 1 { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(length * 3 / 4)
        var accumulator: UInt32 = 0
        var bits = 0
        for index in 0..<length {
            guard let value = sextet(utf8[index]) else { return nil }
            accumulator = accumulator << 6 | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                bytes.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
            }
        }
        return bytes
    }

    private static func sextet(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): byte - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): byte - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0") + 52
        case UInt8(ascii: "-"): 62
        case UInt8(ascii: "_"): 63
        default: nil
        }
    }
}
