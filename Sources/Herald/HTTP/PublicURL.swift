import HeraldCore

/// The address clients reach this Herald at, as `scheme://host[:port]` with no path: what the Backendless
/// SDKs take as the real-time server's address (`rtURL`). It is either configured (`http.publicURL`) or
/// built from one request's `X-Forwarded-*` and `Host` headers, which a client chooses: once built it
/// holds only `http` or `https` and a host that cannot carry a path, a query or anything else.
public struct PublicURL: Sendable, Hashable, CustomStringConvertible {
    public enum Scheme: String, Sendable {
        case http
        case https
    }

    public let scheme: Scheme
    /// `host`, `host:port`, `[ipv6]` or `[ipv6]:port`.
    public let authority: String

    /// A scheme and an authority; nil when the authority is not `hostname[:port]` or `[ipv6][:port]`.
    public init?(scheme: Scheme, authority: String) {
        guard Self.isAuthority(authority) else { return nil }
        self.scheme = scheme
        self.authority = authority
    }

    /// Reads a configured URL: `http://` or `https://` and a host, with no path but `/` (dropped), no query,
    /// fragment or user.
    public init(parsing text: String) throws(SettingError) {
        let lowered = text.lowercased()
        guard let scheme = [Scheme.https, .http].first(where: { lowered.hasPrefix("\($0.rawValue)://") }) else {
            throw SettingError("must start with http:// or https://, not '\(text.prefix(64))'")
        }
        var rest = text.dropFirst(scheme.rawValue.count + 3)
        if rest.hasSuffix("/") { rest = rest.dropLast() }
        guard let url = PublicURL(scheme: scheme, authority: String(rest)) else {
            throw SettingError(
                "must be scheme://host[:port] with no path, query or user (https://push.example.com), not '\(text.prefix(64))'")
        }
        self = url
    }

    public var description: String { "\(scheme.rawValue)://\(authority)" }

    /// `hostname[:port]` (letters, digits, `-`, `_`, dot-separated labels, at most 253 characters) or
    /// `[ipv6][:port]`; a port is 1–65535.
    static func isAuthority(_ text: String) -> Bool {
        var host = Substring(text)
        var port: Substring?
        if host.hasPrefix("[") {
            guard let close = host.firstIndex(of: "]") else { return false }
            let address = host[host.index(after: host.startIndex)..<close]
            let after = host[host.index(after: close)...]
            guard address.contains(":"), address.allSatisfy({ $0.isASCII && ($0.isHexDigit || $0 == ":" || $0 == ".") }) else {
                return false
            }
            if !after.isEmpty {
                guard after.hasPrefix(":") else { return false }
                port = after.dropFirst()
            }
        } else {
            if let colon = host.lastIndex(of: ":") {
                port = host[host.index(after: colon)...]
                host = host[..<colon]
            }
            let labels = host.split(separator: ".", omittingEmptySubsequences: false)
            guard !host.isEmpty, host.utf8.count <= 253,
                labels.allSatisfy({ label in
                    (1...63).contains(label.utf8.count)
                        && label.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }
                })
            else { return false }
        }
        if let port {
            guard (1...5).contains(port.count), port.allSatisfy({ $0.isASCII && $0.isNumber }), let number = Int(port),
                (1...65535).contains(number)
            else { return false }
        }
        return true
    }
}
