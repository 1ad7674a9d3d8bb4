import Crypto
import HeraldCore

/// The one JWT writer: a JSON header and claims, base64url-encoded, signed with ES256 (P-256 and
/// SHA-256, the raw r‖s signature JWS wants). Apple's bearer tokens and Web Push's VAPID tokens are both
/// this; each says only what goes in its header and claims.
public enum ES256JWT {
    /// `header` and `claims` are JSON texts, signed as given.
    public static func sign(header: String, claims: String, with key: P256.Signing.PrivateKey) throws -> String {
        let signingInput = Base64URL.encode(Array(header.utf8)) + "." + Base64URL.encode(Array(claims.utf8))
        let signature = try key.signature(for: Array(signingInput.utf8))
        return signingInput + "." + Base64URL.encode(Array(signature.rawRepresentation))
    }
}
