import Foundation
import HeraldCore
import _CryptoExtras

@testable import HeraldFCM

/// One RSA key for the whole test run (generating one takes a while) and service accounts around it.
enum TestAccount {
    static let key: _RSA.Signing.PrivateKey = try! _RSA.Signing.PrivateKey(keySize: .bits2048)

    static let projectID = "herald-test"
    static let privateKeyID = "0123456789abcdef0123456789abcdef01234567"
    static let clientEmail = "herald@herald-test.iam.gserviceaccount.com"
    static let tokenURI = "https://oauth2.googleapis.com/token"

    /// A key file's fields, as Google writes them; `replacing` overrides or (with nil) drops some.
    static func json(replacing changes: [String: String?] = [:]) -> [UInt8] {
        var fields: [String: String] = [
            "type": "service_account", "project_id": projectID, "private_key_id": privateKeyID,
            "private_key": key.pkcs8PEMRepresentation, "client_email": clientEmail, "client_id": "1234567890",
            "auth_uri": "https://accounts.google.com/o/oauth2/auth", "token_uri": tokenURI,
        ]
        for (name, value) in changes { fields[name] = value }
        return Array(try! JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys]))
    }

    static func account() throws -> FCMServiceAccount { try FCMServiceAccount(json: json()) }
}

/// base64url (no padding) back to bytes, for reading JWTs in tests.
func base64URLDecode(_ text: Substring) -> [UInt8]? {
    var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
    while base64.count % 4 != 0 { base64 += "=" }
    return Data(base64Encoded: base64).map(Array.init)
}

/// A generator that always answers the same, so jittered delays are exact in assertions.
struct FixedRandom: RandomNumberGenerator {
    var value: UInt64
    mutating func next() -> UInt64 { value }
}
