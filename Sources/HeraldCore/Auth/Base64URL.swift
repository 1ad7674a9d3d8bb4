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
    /// and `/` are refused, as a browser never sends them in a subscription's keys).
    public static func decode(_ text: String) -> [UInt8]? {
        guard
            text.utf8.allSatisfy({
                $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: "=") || (0x30...0x39).contains($0)
                    || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0)
            })
        else {
            return nil
        }
        var standard = text.replacingOccurrences(of: "=", with: "").replacingOccurrences(of: "-", with: "+")
            .replacingOccurrences(of: "_", with: "/")
        if standard.count % 4 == 1 { return nil }
        standard += String(repeating: "=", count: (4 - standard.count % 4) % 4)
        return Data(base64Encoded: standard).map(Array.init)
    }
}
