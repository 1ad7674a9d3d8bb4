import Crypto
import Foundation
import HeraldCore
import HeraldSigning

/// The application server's VAPID key pair (RFC 8292): a P-256 private key read from a PEM file, whose
/// public key the web app passes to `pushManager.subscribe` as `applicationServerKey`, and which signs
/// the token every request to a push service carries.
public struct VAPIDKey: Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    let privateKey: P256.Signing.PrivateKey
    /// `mailto:` or `https:`: how the push service's operator reaches the sender (the `sub` claim).
    public let subject: String

    public init(privateKey: P256.Signing.PrivateKey, subject: String) throws(VAPIDKeyError) {
        guard subject.hasPrefix("mailto:") || subject.hasPrefix("https:") else {
            throw VAPIDKeyError("the subject must be a mailto: or https: URI, got '\(subject.prefix(64))'")
        }
        self.privateKey = privateKey
        self.subject = subject
    }

    /// Reads a PEM P-256 private key (PKCS#8 or SEC1, as `openssl ecparam`/`herald keys` write it).
    public init(pemFile path: String, subject: String) throws(VAPIDKeyError) {
        try self.init(privateKey: try Self.privateKey(pemFile: path), subject: subject)
    }

    static func privateKey(pemFile path: String) throws(VAPIDKeyError) -> P256.Signing.PrivateKey {
        let pem: String
        do {
            pem = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw VAPIDKeyError("cannot read the key file \(path)")
        }
        do {
            return try P256.Signing.PrivateKey(pemRepresentation: pem)
        } catch {
            throw VAPIDKeyError("\(path) is not a P-256 private key in PEM")
        }
    }

    /// A new key pair, as the PEM (PKCS#8) a `privateKeyFile` holds: what `herald keys --vapid` writes.
    public static func newPrivateKeyPEM() -> String { P256.Signing.PrivateKey().pemRepresentation }

    /// The `applicationServerKey` of the key in a PEM file.
    public static func applicationServerKey(pemFile path: String) throws(VAPIDKeyError) -> String {
        Base64URL.encode(Array(try privateKey(pemFile: path).publicKey.x963Representation))
    }

    /// The public key as the browser's `applicationServerKey` takes it: the uncompressed point, base64url.
    public var applicationServerKey: String { Base64URL.encode(Array(privateKey.publicKey.x963Representation)) }

    /// The `Authorization` header's value for a push service at `audience` (its origin,
    /// `https://host[:port]`), valid until `expiresAt` epoch seconds: `vapid t=<JWT>, k=<public key>`.
    public func authorization(audience: String, expiresAt: Int64) throws -> String {
        let claims = #"{"aud":"\#(Self.escaped(audience))","exp":\#(expiresAt),"sub":"\#(Self.escaped(subject))"}"#
        let jwt = try ES256JWT.sign(header: #"{"typ":"JWT","alg":"ES256"}"#, claims: claims, with: privateKey)
        return "vapid t=\(jwt), k=\(applicationServerKey)"
    }

    /// The push service's origin for an endpoint URL (the token's audience), or nil for one without a host.
    public static func audience(of endpoint: String) -> String? {
        guard let components = URLComponents(string: endpoint), let scheme = components.scheme, let host = components.host else {
            return nil
        }
        // The origin's form (RFC 6454): lower case, no default port.
        let lower = scheme.lowercased()
        let port = components.port.flatMap { ($0 == 443 && lower == "https") || ($0 == 80 && lower == "http") ? nil : $0 }
        return "\(lower)://\(host.lowercased())\(port.map { ":\($0)" } ?? "")"
    }

    /// A JSON string's content: quotes and backslashes escaped (an origin or a mailto: has no others).
    static func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
    }

    /// The public key only: the private key never reaches a log through interpolation.
    public var description: String { "VAPID key \(applicationServerKey.prefix(12))… for \(subject)" }
    public var debugDescription: String { description }
}

/// The VAPID key or subject cannot be used.
public struct VAPIDKeyError: Error, Sendable, Hashable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
