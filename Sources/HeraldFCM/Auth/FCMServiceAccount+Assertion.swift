import Crypto
import Foundation
import HeraldCore
import _CryptoExtras

extension FCMServiceAccount {
    /// The OAuth scope that lets an access token send FCM messages.
    static let messagingScope = "https://www.googleapis.com/auth/firebase.messaging"

    /// How long an assertion is valid; Google accepts at most an hour.
    static let assertionLifetimeSeconds: Int64 = 3600

    /// The signed JWT (RS256: RSASSA-PKCS1-v1_5 with SHA-256) that the token endpoint trades for an
    /// access token, issued at `issuedAt` epoch seconds. A credential: never log it.
    func assertion(issuedAt: Int64) throws -> String {
        let header = #"{"alg":"RS256","typ":"JWT","kid":\#(Self.jsonString(privateKeyID))}"#
        let claims =
            #"{"iss":\#(Self.jsonString(clientEmail)),"scope":"\#(Self.messagingScope)","aud":\#(Self.jsonString(tokenURI)),"#
            + #""iat":\#(issuedAt),"exp":\#(issuedAt + Self.assertionLifetimeSeconds)}"#
        let signingInput = Base64URL.encode(Array(header.utf8)) + "." + Base64URL.encode(Array(claims.utf8))
        let signature = try privateKey.signature(for: SHA256.hash(data: Array(signingInput.utf8)), padding: .insecurePKCS1v1_5)
        return signingInput + "." + Base64URL.encode(Array(signature.rawRepresentation))
    }

    /// The token request's form body.
    func tokenRequestBody(issuedAt: Int64) throws -> [UInt8] {
        // A JWT is base64url and dots only, and colons are legal in a form value (Google's documented
        // form), so nothing needs escaping.
        Array(("grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer&assertion=" + (try assertion(issuedAt: issuedAt))).utf8)
    }

    /// A JSON string literal (the ids come from a file: quotes and backslashes are escaped).
    static func jsonString(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case _ where scalar.value < 0x20: out += String(format: "\\u%04x", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
