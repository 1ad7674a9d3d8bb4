import Crypto
import Foundation
import HeraldCore

/// The sending side the tests need, written here from the RFCs (apart from the mock's receiver and
/// from Herald's sender): RFC 8291 encryption in one aes128gcm record, and RFC 8292 VAPID headers.
enum WebPushTestSender {
    /// `plaintext` sealed for a subscription's `p256dh` and `auth`; `delimiter`, `padding` and
    /// `recordSize` can be made wrong.
    static func encrypt(
        _ plaintext: [UInt8], p256dh: [UInt8], auth: [UInt8], delimiter: UInt8 = 2, padding: Int = 0, recordSize: UInt32 = 4096
    ) throws -> [UInt8] {
        let ephemeral = P256.KeyAgreement.PrivateKey()
        let senderPublic = Array(ephemeral.publicKey.x963Representation)
        let salt = (0..<16).map { _ in UInt8.random(in: 0...255) }
        let shared = try ephemeral.sharedSecretFromKeyAgreement(with: try P256.KeyAgreement.PublicKey(x963Representation: p256dh))
        let info = Array("WebPush: info\0".utf8) + p256dh + senderPublic
        let ikm = shared.hkdfDerivedSymmetricKey(using: SHA256.self, salt: auth, sharedInfo: info, outputByteCount: 32)
        let key = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: ikm, salt: salt, info: Array("Content-Encoding: aes128gcm\0".utf8), outputByteCount: 16)
        let nonce = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: ikm, salt: salt, info: Array("Content-Encoding: nonce\0".utf8), outputByteCount: 12)
        let sealed = try AES.GCM.seal(
            plaintext + [delimiter] + Array(repeating: 0, count: padding), using: key,
            nonce: try nonce.withUnsafeBytes { try AES.GCM.Nonce(data: Array($0)) })
        let size = withUnsafeBytes(of: recordSize.bigEndian) { Array($0) }
        return salt + size + [UInt8(senderPublic.count)] + senderPublic + sealed.ciphertext + sealed.tag
    }

    /// `vapid t=<JWT>, k=<key>` for `claims` (JSON text), signed by `signer` (default: `key`).
    static func authorization(
        key: P256.Signing.PrivateKey, claims: String, header: String = #"{"typ":"JWT","alg":"ES256"}"#,
        signer: P256.Signing.PrivateKey? = nil
    ) throws -> String {
        let input = Base64URL.encode(Array(header.utf8)) + "." + Base64URL.encode(Array(claims.utf8))
        let signature = try (signer ?? key).signature(for: Data(input.utf8))
        let jwt = input + "." + Base64URL.encode(Array(signature.rawRepresentation))
        return "vapid t=\(jwt), k=\(Base64URL.encode(Array(key.publicKey.x963Representation)))"
    }

    /// The claims of a VAPID token; a nil member is left out.
    static func claims(audience: String?, expiresAt: Double?, subject: String?) -> String {
        var members: [String] = []
        if let audience { members.append(#""aud":"\#(audience)""#) }
        if let expiresAt { members.append(#""exp":\#(Int64(expiresAt))"#) }
        if let subject { members.append(#""sub":"\#(subject)""#) }
        return "{" + members.joined(separator: ",") + "}"
    }
}
