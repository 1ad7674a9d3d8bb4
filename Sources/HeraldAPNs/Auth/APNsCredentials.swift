/// How the client proves who it is to APNs. One client (one curl multi handle, one connection
/// pool) per credential: APNs binds a connection to the first team or certificate it sees.
public enum APNsCredentials: Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    /// Token auth: a JWT signed with the team's `.p8` key on every request.
    case token(APNsSigningKey)
    /// Certificate auth: a client TLS certificate and its key (PEM files, or one PKCS#12 file
    /// given as `certificateFile` with `privateKeyFile` nil).
    case certificate(certificateFile: String, privateKeyFile: String?, passphrase: String?)

    /// Which credential, never the passphrase or key.
    public var description: String {
        switch self {
        case .token(let key): "token auth with \(key)"
        case .certificate(let file, _, _): "certificate auth with \(file)"
        }
    }
    public var debugDescription: String { description }
}

/// Where APNs is.
public enum APNsEnvironment: Sendable, Hashable {
    case production
    case development
    /// Any APNs-like server: `http://` speaks cleartext HTTP/2 (prior knowledge, tests only),
    /// `https://` TLS with ALPN, trusting `caFile` if given.
    case custom(url: String, caFile: String?)

    /// The base URL, without a trailing slash.
    public var baseURL: String {
        switch self {
        case .production: "https://api.push.apple.com"
        case .development: "https://api.sandbox.push.apple.com"
        case .custom(let url, _): url.hasSuffix("/") ? String(url.dropLast()) : url
        }
    }

    var caFile: String? {
        if case .custom(_, let caFile) = self { return caFile }
        return nil
    }

    /// Whether the URL is cleartext (h2c).
    var isCleartext: Bool { baseURL.lowercased().hasPrefix("http://") }
}
