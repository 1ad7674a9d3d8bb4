/// A push token. For Apple platforms it is hex of any even length (real tokens are longer than 64),
/// kept lower-case; a WEB device's is its push subscription's JSON, checked as `WebPushSubscription`;
/// other platforms' tokens are opaque strings.
public struct DeviceToken: Sendable, Hashable {
    public let rawValue: String

    /// What an app's configuration adds to the checks of its devices' tokens.
    public struct Rules: Sendable, Equatable {
        /// Which push-service hosts a WEB device's subscription may name (the app's `webPush` block).
        public var webPushHosts: WebPushSubscription.HostPolicy

        public init(webPushHosts: WebPushSubscription.HostPolicy = WebPushSubscription.HostPolicy()) {
            self.webPushHosts = webPushHosts
        }
    }

    /// The longest token a device of `os` may register (8000 past it).
    public static func limit(for os: DeviceOS) -> Int {
        os == .web ? WebPushSubscription.maxTokenLength : Limits.deviceToken
    }

    /// Checks a token for `os`; `property` names it in a fault (a Live Activity token is a body's `token`).
    public init(validating token: String, os: DeviceOS, rules: Rules = Rules(), property: String = "deviceToken") throws(HeraldFault) {
        try Limits.check(property, token, limit: Self.limit(for: os))
        if token.isEmpty { throw .missingParameter(property) }
        try Limits.checkPrintable(property, token)
        if os.usesHexTokens {
            let isHex = token.allUTF8Bytes { byte in
                (byte >= 48 && byte <= 57) || (byte >= 65 && byte <= 70) || (byte >= 97 && byte <= 102)
            }
            guard isHex, token.utf8.count % 2 == 0 else {
                throw .invalidParameter(property, "an \(os.rawValue) token must be hexadecimal with an even number of digits")
            }
            self.rawValue = token.lowercased()
        } else {
            if os == .web { _ = try WebPushSubscription(parsing: token, hosts: rules.webPushHosts) }
            self.rawValue = token
        }
    }

    /// What may appear in a log: the first 8 characters, never the whole token.
    public var redacted: String { String(rawValue.prefix(8)) + "…" }
}
