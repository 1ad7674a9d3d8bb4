import Crypto
import Foundation
import HeraldCore
import HeraldWebPush
import Testing

/// RFC 8291's encryption, held to the RFC's own example (Appendix A) byte for byte, and to the receiving
/// side's steps (RFC 8188 and 8291 §3.4, written here apart from the sender) for fresh keys and salts.
@Suite struct WebPushEncryptionTests {
    static func bytes(_ base64url: String) -> [UInt8] { Base64URL.decode(base64url) ?? [] }

    // The example of RFC 8291, Appendix A.
    static let plaintext = Array("When I grow up, I want to be a watermelon".utf8)
    static let senderPrivate = "yfWPiYE-n46HLnH0KqZOF1fJJU3MYrct3AELtAQ-oRw"
    static let receiverPrivate = "q1dXpw3UpT5VOmu_cf_v6ih07Aems3njxI-JWgLcM94"
    static let receiverPublic = "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4"
    static let auth = "BTBZMqHH6r4Tts7J_aSIgg"
    static let salt = "DGv6ra1nlYgDCS1FRnbzlw"
    static let body =
        "DGv6ra1nlYgDCS1FRnbzlwAAEABBBP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A_yl95bQpu6cVPTpK4Mqgkf1CXztLVBSt2Ks3oZwbuwXPXLWyouBWLVWGNWQexSgSxsj_Qulcy4a-fN"

    @Test func theRFCsExampleIsReproducedByteForByte() throws {
        let recipient = try WebPushEncryption.Recipient(p256dh: Self.bytes(Self.receiverPublic), auth: Self.bytes(Self.auth))
        let sender = try P256.KeyAgreement.PrivateKey(rawRepresentation: Self.bytes(Self.senderPrivate))
        let sealed = try WebPushEncryption.encrypt(Self.plaintext, for: recipient, salt: Self.bytes(Self.salt), ephemeralKey: sender)
        #expect(Base64URL.encode(sealed) == Self.body)
        #expect(sealed.count == Self.plaintext.count + WebPushEncryption.overhead)
    }

    /// The browser's side, from the RFCs: read the header, derive the same keys, open the record.
    static func decrypt(_ body: [UInt8], receiver: P256.KeyAgreement.PrivateKey, auth: [UInt8]) throws -> [UInt8] {
        let salt = Array(body[0..<16])
        let recordSize = body[16..<20].reduce(0) { $0 << 8 | UInt32($1) }
        #expect(recordSize == 4096)
        let keyLength = Int(body[20])
        let senderPublic = Array(body[21..<(21 + keyLength)])
        let shared = try receiver.sharedSecretFromKeyAgreement(with: try P256.KeyAgreement.PublicKey(x963Representation: senderPublic))
        let info = Array("WebPush: info".utf8) + [0] + Array(receiver.publicKey.x963Representation) + senderPublic
        let keying = shared.hkdfDerivedSymmetricKey(using: SHA256.self, salt: auth, sharedInfo: info, outputByteCount: 32)
        let key = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: keying, salt: salt, info: Array("Content-Encoding: aes128gcm".utf8) + [0], outputByteCount: 16)
        let nonce = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: keying, salt: salt, info: Array("Content-Encoding: nonce".utf8) + [0], outputByteCount: 12
        ).withUnsafeBytes { Array($0) }
        let record = Array(body[(21 + keyLength)...])
        let box = try AES.GCM.SealedBox(
            nonce: try AES.GCM.Nonce(data: nonce), ciphertext: record.dropLast(16), tag: record.suffix(16))
        var padded = Array(try AES.GCM.open(box, using: key))
        // The last record ends with the delimiter 2, then any zero padding.
        while padded.last == 0 { padded.removeLast() }
        #expect(padded.last == 2)
        return Array(padded.dropLast())
    }

    @Test func theRFCsExampleOpensWithTheReceiversKey() throws {
        let receiver = try P256.KeyAgreement.PrivateKey(rawRepresentation: Self.bytes(Self.receiverPrivate))
        #expect(Base64URL.encode(Array(receiver.publicKey.x963Representation)) == Self.receiverPublic)
        #expect(try Self.decrypt(Self.bytes(Self.body), receiver: receiver, auth: Self.bytes(Self.auth)) == Self.plaintext)
    }

    @Test func everyMessageHasItsOwnSaltAndKeyAndOpensForItsReceiverOnly() throws {
        let receiver = P256.KeyAgreement.PrivateKey()
        let auth = Array((0..<16).map { UInt8($0 * 7) })
        let recipient = try WebPushEncryption.Recipient(p256dh: Array(receiver.publicKey.x963Representation), auth: auth)
        let message = Array(#"{"title":"Hello","body":"From Herald"}"#.utf8)
        let first = try WebPushEncryption.encrypt(message, for: recipient)
        let second = try WebPushEncryption.encrypt(message, for: recipient)
        #expect(first != second, "a fresh salt and ephemeral key each time")
        #expect(first.prefix(16) != second.prefix(16) && first[21..<86] != second[21..<86])
        #expect(try Self.decrypt(first, receiver: receiver, auth: auth) == message)
        #expect(try Self.decrypt(second, receiver: receiver, auth: auth) == message)
        #expect(throws: (any Error).self) { try Self.decrypt(first, receiver: P256.KeyAgreement.PrivateKey(), auth: auth) }
        #expect(throws: (any Error).self) { try Self.decrypt(first, receiver: receiver, auth: Array(repeating: 1, count: 16)) }
    }

    @Test func theLargestPayloadFitsAndOneByteMoreIsRefused() throws {
        let receiver = P256.KeyAgreement.PrivateKey()
        let recipient = try WebPushEncryption.Recipient(
            p256dh: Array(receiver.publicKey.x963Representation), auth: Array(repeating: 9, count: 16))
        let largest = try WebPushEncryption.encrypt(Array(repeating: 0x41, count: WebPushEncryption.maxPlaintext), for: recipient)
        #expect(largest.count == 4096)
        #expect(throws: WebPushEncryptionError.self) {
            try WebPushEncryption.encrypt(Array(repeating: 0x41, count: WebPushEncryption.maxPlaintext + 1), for: recipient)
        }
    }

    @Test func badKeysAreRefusedWithWhatIsWrong() {
        #expect(throws: WebPushEncryptionError("p256dh must be an uncompressed P-256 point of 65 bytes, got 33")) {
            try WebPushEncryption.Recipient(p256dh: Array(repeating: 2, count: 33), auth: Array(repeating: 0, count: 16))
        }
        #expect(throws: WebPushEncryptionError("auth must be 16 bytes, got 8")) {
            try WebPushEncryption.Recipient(p256dh: Self.bytes(Self.receiverPublic), auth: Array(repeating: 0, count: 8))
        }
        var offCurve = Self.bytes(Self.receiverPublic)
        offCurve[64] ^= 1
        #expect(throws: WebPushEncryptionError("p256dh is not a point on P-256")) {
            try WebPushEncryption.Recipient(p256dh: offCurve, auth: Array(repeating: 0, count: 16))
        }
    }
}
