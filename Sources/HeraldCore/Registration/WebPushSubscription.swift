/// A browser's push subscription as a web app registers it: `JSON.stringify(subscription)` given as the
/// `deviceToken` of a `WEB` device (as Parse Server's Web Push adapter takes it), read and checked here
/// so that a subscription Herald accepts is one it can send to (issue 26; the registration route takes
/// it once Web Push is wired in). Errors are 8000 (too long) or 8008 naming the field.
public struct WebPushSubscription: Sendable, Equatable {
    /// The push service's URL for this browser (RFC 8030), `https` only.
    public let endpoint: String
    /// The browser's P-256 public key: 65 bytes, an uncompressed point.
    public let p256dh: [UInt8]
    /// The browser's 16-byte authentication secret.
    public let auth: [UInt8]
    /// When the browser says the subscription ends (epoch milliseconds), if it says.
    public let expirationTime: Int64?

    /// The longest `deviceToken` a WEB device may register (a subscription with a long endpoint and both
    /// keys is 400–600 bytes; the other systems' limit of 512 is too small for it).
    public static let maxTokenLength = 2048
    /// The longest endpoint URL.
    public static let maxEndpointLength = 1024

    /// Which push-service hosts a subscription may name.
    public struct HostPolicy: Sendable, Equatable {
        /// Loopback, private and link-local addresses too (tests and the mock only).
        public var allowPrivateHosts: Bool
        /// When set, only these hosts (exactly, or a subdomain of one).
        public var allowedHosts: [String]?

        public init(allowPrivateHosts: Bool = false, allowedHosts: [String]? = nil) {
            self.allowPrivateHosts = allowPrivateHosts
            self.allowedHosts = allowedHosts
        }
    }

    public init(parsing token: String, hosts: HostPolicy = HostPolicy()) throws(HeraldFault) {
        if token.utf8.count > Self.maxTokenLength {
            throw .tooLong(property: "deviceToken", length: token.utf8.count, limit: Self.maxTokenLength)
        }
        guard case .object(let fields) = try? JSONValue.parse(Array(token.utf8)) else {
            throw .invalidParameter(
                "deviceToken", "a WEB device's token is its push subscription as JSON.stringify(subscription) gives it")
        }
        guard case .string(let endpoint)? = fields["endpoint"] else {
            throw .invalidParameter("deviceToken.endpoint", "the subscription's endpoint URL is required")
        }
        try Self.check(endpoint: endpoint, hosts: hosts)
        guard case .object(let keys)? = fields["keys"] else {
            throw .invalidParameter("deviceToken.keys", "the subscription's keys (p256dh and auth) are required")
        }
        func key(_ name: String, length: Int, what: String) throws(HeraldFault) -> [UInt8] {
            guard case .string(let text)? = keys[name], let bytes = Base64URL.decode(text) else {
                throw .invalidParameter("deviceToken.keys.\(name)", "expected \(what) in base64url")
            }
            guard bytes.count == length else {
                throw .invalidParameter("deviceToken.keys.\(name)", "expected \(what) (\(length) bytes), got \(bytes.count) bytes")
            }
            return bytes
        }
        let p256dh = try key("p256dh", length: 65, what: "the browser's P-256 public key")
        guard p256dh[0] == 0x04 else {
            throw .invalidParameter("deviceToken.keys.p256dh", "expected an uncompressed P-256 point (its first byte 4)")
        }
        let auth = try key("auth", length: 16, what: "the browser's authentication secret")
        switch fields["expirationTime"] {
        case nil, .null?: expirationTime = nil
        case .integer(let milliseconds)? where milliseconds >= 0: expirationTime = milliseconds
        case .number(let milliseconds)? where milliseconds >= 0 && milliseconds < 9e15: expirationTime = Int64(milliseconds)
        default: throw .invalidParameter("deviceToken.expirationTime", "expected epoch milliseconds or null")
        }
        self.endpoint = endpoint
        self.p256dh = p256dh
        self.auth = auth
    }

    /// An endpoint Herald will POST to: https, a host, no user or password in it, not too long, and
    /// (unless allowed) not a loopback, private or link-local address nor `localhost`. A host name is not
    /// resolved here: one that resolves to a private address passes (the allow-list closes that).
    static func check(endpoint: String, hosts: HostPolicy) throws(HeraldFault) {
        if endpoint.utf8.count > maxEndpointLength {
            throw .tooLong(property: "deviceToken.endpoint", length: endpoint.utf8.count, limit: maxEndpointLength)
        }
        guard endpoint.lowercased().hasPrefix("https://") else {
            throw .invalidParameter("deviceToken.endpoint", "a push service is reached over https://")
        }
        let afterScheme = endpoint.dropFirst("https://".count)
        let authority = afterScheme.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        guard !authority.contains("@") else {
            throw .invalidParameter("deviceToken.endpoint", "no user name or password in the URL")
        }
        guard !endpoint.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value == 0x7F }) else {
            throw .invalidParameter("deviceToken.endpoint", "no spaces or control characters in the URL")
        }
        let host = Self.host(of: authority)
        guard !host.isEmpty else { throw .invalidParameter("deviceToken.endpoint", "the URL names no host") }
        if !hosts.allowPrivateHosts && Self.isPrivate(host) {
            throw .invalidParameter(
                "deviceToken.endpoint", "'\(host.prefix(64))' is a loopback, private or link-local address (webPush.allowPrivateHosts)")
        }
        if let allowed = hosts.allowedHosts, !allowed.contains(where: { host == $0.lowercased() || host.hasSuffix("." + $0.lowercased()) })
        {
            throw .invalidParameter("deviceToken.endpoint", "'\(host.prefix(64))' is not one of the allowed push services")
        }
    }

    /// The host of `host[:port]` or `[v6]:port`, lower-cased, without brackets.
    static func host(of authority: Substring) -> String {
        if authority.hasPrefix("[") {
            return String(authority.dropFirst().prefix { $0 != "]" }).lowercased()
        }
        return String(authority.prefix { $0 != ":" }).lowercased()
    }

    /// Whether `host` is `localhost` (or under it) or a loopback, private, link-local, unspecified or
    /// shared (carrier-grade NAT) IPv4 or IPv6 address.
    static func isPrivate(_ host: String) -> Bool {
        if host == "localhost" || host.hasSuffix(".localhost") { return true }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        let octets = parts.compactMap { UInt8($0) }
        if parts.count == 4 && octets.count == 4 {
            switch (octets[0], octets[1]) {
            case (0, _), (10, _), (127, _), (169, 254), (192, 168): return true
            case (172, 16...31), (100, 64...127): return true
            default: return false
            }
        }
        if host.contains(":") {
            let groups = host.split(separator: ":", omittingEmptySubsequences: true)
            if host == "::" || host == "::1" { return true }
            guard let first = groups.first, let value = UInt16(first, radix: 16) else { return false }
            if value & 0xFE00 == 0xFC00 { return true }  // fc00::/7, unique local
            if value & 0xFFC0 == 0xFE80 { return true }  // fe80::/10, link-local
            // An IPv4-mapped address (::ffff:a.b.c.d) is checked as its IPv4 address.
            if host.hasPrefix("::ffff:"), let mapped = host.split(separator: ":").last, mapped.contains(".") {
                return isPrivate(String(mapped))
            }
        }
        return false
    }
}
