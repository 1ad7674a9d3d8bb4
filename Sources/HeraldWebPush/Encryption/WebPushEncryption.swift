import Crypto
import Foundation
import HeraldCore

/// A push message's body encrypted for one browser (RFC 8291, "Message Encryption for Web Push"), in
/// the `aes128gcm` content coding of RFC 8188: one record, since a Web Push message is at most 4096
/// bytes. Every message to every recipient gets a fresh ephemeral key pair and salt (the parameters
/// exist only so the RFC's own example can be reproduced).
///
/// The steps, from the browser's subscription keys (`p256dh`, its public key, and `auth`, a 16-byte
/// secret):
/// 1. ECDH between the ephemeral private key and `p256dh` gives a shared secret.
/// 2. HKDF-SHA-256 with `auth` as the salt and "WebPush: info" ‖ 0 ‖ `p256dh` ‖ ephemeral public key as
///    the info turns it into 32 bytes of input keying material.
/// 3. HKDF-SHA-256 with the random salt turns that into the content-encryption key (16 bytes, info
///    "Content-Encoding: aes128gcm" ‖ 0) and the nonce (12 bytes, info "Content-Encoding: nonce" ‖ 0).
/// 4. The plaintext followed by the last-record delimiter 0x02 is sealed with AES-128-GCM.
/// 5. The body is the RFC 8188 header (salt, record size as a 32-bit big-endian number, the key id's
///    length, the key id, which is the ephemeral public key) followed by the sealed record and its tag.
public enum WebPushEncryption {
    /// The record size the header announces: a Web Push message fits in one record of it.
    public static let recordSize: UInt32 = 4096
    /// RFC 8188's header here: 16 bytes of salt, 4 of record size, 1 of key-id length, 65 of key id.
    public static let headerLength = 16 + 4 + 1 + 65
    /// What sealing adds to the plaintext: the delimiter byte and the 16-byte tag.
    public static let overhead = headerLength + 1 + 16
    /// The most plaintext one message carries: push services accept 4096 bytes of body (RFC 8030),
    /// and the header, delimiter and tag take 103 of them.
    public static let maxPlaintext = 4096 - overhead

    /// A subscription's keys as the browser gives them (`keys.p256dh`, `keys.auth`).
    public struct Recipient: Sendable {
        public let publicKey: P256.KeyAgreement.PublicKey
        /// `publicKey` as 65 uncompressed point bytes, as it goes into the key derivation.
        public let publicKeyBytes: [UInt8]
        public let authSecret: [UInt8]

        public init(publicKey: P256.KeyAgreement.PublicKey, authSecret: [UInt8]) {
            self.publicKey = publicKey
            self.publicKeyBytes = Array(publicKey.x963Representation)
            self.authSecret = authSecret
        }

        /// From `p256dh` (65 bytes, an uncompressed P-256 point) and `auth` (16 bytes).
        public init(p256dh: [UInt8], auth: [UInt8]) throws(WebPushEncryptionError) {
            guard p256dh.count == 65, p256dh.first == 0x04 else {
                throw WebPushEncryptionError("p256dh must be an uncompressed P-256 point of 65 bytes, got \(p256dh.count)")
            }
            guard auth.count == 16 else { throw WebPushEncryptionError("auth must be 16 bytes, got \(auth.count)") }
            do {
                self.init(publicKey: try P256.KeyAgreement.PublicKey(x963Representation: p256dh), authSecret: auth)
            } catch {
                throw WebPushEncryptionError("p256dh is not a point on P-256")
            }
        }
    }

    /// A fresh P-256 key pair from 32 random bytes (a scalar below the group order, else drawn again: the
    /// chance of that is 2⁻³²). swift-crypto's `PrivateKey()` costs five times as much here (about 80 µs
    /// against 15 on this machine: it checks the key it made, and by default draws until the key has a
    /// compact representation, which Web Push does not use), and a fan-out makes one per notification.
    static func newEphemeralKey() -> P256.KeyAgreement.PrivateKey {
        while true {
            let scalar = SymmetricKey(size: .bits256).withUnsafeBytes { Array($0) }
            if let key = try? P256.KeyAgreement.PrivateKey(rawRepresentation: scalar) { return key }
        }
    }

    /// `plaintext` sealed for `recipient`, as the body of the POST to its endpoint.
    public static func encrypt(
        _ plaintext: [UInt8], for recipient: Recipient, salt: [UInt8]? = nil, ephemeralKey: P256.KeyAgreement.PrivateKey? = nil
    ) throws(WebPushEncryptionError) -> [UInt8] {
        guard plaintext.count <= maxPlaintext else {
            throw WebPushEncryptionError("the payload is \(plaintext.count) bytes; Web Push carries at most \(maxPlaintext)")
        }
        let salt = salt ?? Array(SymmetricKey(size: .bits128).withUnsafeBytes { Array($0) })
        guard salt.count == 16 else { throw WebPushEncryptionError("the salt must be 16 bytes") }
        let ephemeral = ephemeralKey ?? Self.newEphemeralKey()
        let senderPublic = Array(ephemeral.publicKey.x963Representation)
        let (key, nonce): (SymmetricKey, [UInt8])
        do {
            let shared = try ephemeral.sharedSecretFromKeyAgreement(with: recipient.publicKey)
            let info = Array("WebPush: info".utf8) + [0] + recipient.publicKeyBytes + senderPublic
            let keying = shared.hkdfDerivedSymmetricKey(
                using: SHA256.self, salt: recipient.authSecret, sharedInfo: info, outputByteCount: 32)
            key = HKDF<SHA256>.deriveKey(
                inputKeyMaterial: keying, salt: salt, info: Array("Content-Encoding: aes128gcm".utf8) + [0], outputByteCount: 16)
            nonce = HKDF<SHA256>.deriveKey(
                inputKeyMaterial: keying, salt: salt, info: Array("Content-Encoding: nonce".utf8) + [0], outputByteCount: 12
            ).withUnsafeBytes { Array($0) }
        } catch {
            throw WebPushEncryptionError("key agreement failed: \(error)")
        }
        let sealed: AES.GCM.SealedBox
        do {
            sealed = try AES.GCM.seal(plaintext + [0x02], using: key, nonce: try AES.GCM.Nonce(data: nonce))
        } catch {
            throw WebPushEncryptionError("sealing failed: \(error)")
        }
        var body: [UInt8] = []
        body.reserveCapacity(headerLength + plaintext.count + 17)
        body += salt
        body += [UInt8(recordSize >> 24), UInt8((recordSize >> 16) & 0xFF), UInt8((recordSize >> 8) & 0xFF), UInt8(recordSize & 0xFF)]
        body.append(UInt8(senderPublic.count))
        body += senderPublic
        body += sealed.ciphertext
        body += sealed.tag
        return body
    }
}

/// A message cannot be encrypted for a subscription (bad keys, too large a payload).
public struct WebPushEncryptionError: Error, Sendable, Hashable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
