/// Where an app's events go, and the secret that signs them (`apps[].webhook`).
public struct WebhookTarget: Sendable, Equatable {
    /// `http://` or `https://`.
    public var url: String
    /// The HMAC-SHA256 key; the receiver holds the same one.
    public var secret: String
    /// A PEM bundle to trust instead of the system's (a receiver with a private CA; tests).
    public var caFile: String?
    /// How long one POST may take, connection included.
    public var timeoutMilliseconds: Int

    public static let defaultTimeoutMilliseconds = 10_000

    public init(url: String, secret: String, caFile: String? = nil, timeoutMilliseconds: Int = defaultTimeoutMilliseconds) {
        self.url = url
        self.secret = secret
        self.caFile = caFile
        self.timeoutMilliseconds = timeoutMilliseconds
    }

    /// Why `url` and `secret` cannot be used, or nil. A secret shorter than 16 characters is too easy to guess.
    public static func problem(url: String, secret: String) -> String? {
        let lower = url.lowercased()
        guard lower.hasPrefix("https://") || lower.hasPrefix("http://"), url.count > 8 else {
            return "url must start with https:// (or http:// for a receiver on a trusted network)"
        }
        guard !url.contains(where: { $0.isWhitespace || $0.unicodeScalars.contains { $0.value < 0x20 } }) else {
            return "url must not contain spaces or control characters"
        }
        guard secret.count >= 16 else { return "secret must be at least 16 characters (herald keys --generate prints random ones)" }
        return nil
    }
}
