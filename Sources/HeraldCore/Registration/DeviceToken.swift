/// A push token. For Apple platforms it is hex of any even length (real tokens are longer than 64),
/// kept lower-case; other platforms' tokens are opaque strings.
public struct DeviceToken: Sendable, Hashable {
    public let rawValue: String

    public init(validating token: String, os: DeviceOS) throws(HeraldFault) {
        try Limits.check("deviceToken", token, limit: Limits.deviceToken)
        if token.isEmpty { throw .missingParameter("deviceToken") }
        try Limits.checkPrintable("deviceToken", token)
        if os.usesHexTokens {
            let isHex = token.utf8.allSatisfy { byte in
                (byte >= 48 && byte <= 57) || (byte >= 65 && byte <= 70) || (byte >= 97 && byte <= 102)
            }
            guard isHex, token.utf8.count % 2 == 0 else {
                throw .invalidParameter("deviceToken", "an \(os.rawValue) token must be hexadecimal with an even number of digits")
            }
            self.rawValue = token.lowercased()
        } else {
            self.rawValue = token
        }
    }

    /// What may appear in a log: the first 8 characters, never the whole token.
    public var redacted: String { String(rawValue.prefix(8)) + "…" }
}
