import Crypto
import Foundation
import HeraldCore
import HeraldWebPush
import Testing

/// The VAPID token (RFC 8292): an ES256 JWT for the push service's origin that the key's public half
/// verifies, sent with that public key as the browser's applicationServerKey.
@Suite struct VAPIDKeyTests {
    @Test func theTokenIsSignedForTheOriginAndCarriesThePublicKey() throws {
        let signing = P256.Signing.PrivateKey()
        let key = try VAPIDKey(privateKey: signing, subject: "mailto:ops@example.com")
        let audience = try #require(VAPIDKey.audience(of: "https://push.example.net:8443/send/abc?x=1"))
        #expect(audience == "https://push.example.net:8443")
        let header = try key.authorization(audience: audience, expiresAt: 1_900_000_000)
        let parts = header.split(separator: " ")
        #expect(parts.count == 3 && parts[0] == "vapid" && parts[1].hasPrefix("t=") && parts[2].hasPrefix("k="))
        let jwt = String(parts[1].dropFirst(2).dropLast())  // "t=…,"
        let publicKey = String(parts[2].dropFirst(2))
        #expect(publicKey == Base64URL.encode(Array(signing.publicKey.x963Representation)))
        #expect(publicKey == key.applicationServerKey && Base64URL.decode(publicKey)?.count == 65)

        let pieces = jwt.split(separator: ".").map(String.init)
        #expect(pieces.count == 3)
        let claims = try #require(Base64URL.decode(pieces[1]).map { String(decoding: $0, as: UTF8.self) })
        #expect(claims == #"{"aud":"https://push.example.net:8443","exp":1900000000,"sub":"mailto:ops@example.com"}"#)
        let signature = try P256.Signing.ECDSASignature(rawRepresentation: try #require(Base64URL.decode(pieces[2])))
        #expect(signing.publicKey.isValidSignature(signature, for: Array("\(pieces[0]).\(pieces[1])".utf8)))
        #expect(!P256.Signing.PrivateKey().publicKey.isValidSignature(signature, for: Array("\(pieces[0]).\(pieces[1])".utf8)))
    }

    @Test func aKeyIsReadFromPEMAndItsSubjectChecked() throws {
        let signing = P256.Signing.PrivateKey()
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("vapid-\(UUID().uuidString).pem").path
        try signing.pemRepresentation.write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let key = try VAPIDKey(pemFile: path, subject: "https://example.com/contact")
        #expect(key.applicationServerKey == Base64URL.encode(Array(signing.publicKey.x963Representation)))
        #expect(!"\(key)".contains(signing.pemRepresentation))
        #expect(throws: VAPIDKeyError.self) { try VAPIDKey(privateKey: signing, subject: "ops@example.com") }
        #expect(throws: VAPIDKeyError("cannot read the key file /nonexistent.pem")) {
            try VAPIDKey(pemFile: "/nonexistent.pem", subject: "mailto:a@b")
        }
    }

    @Test func base64urlDecodesWhatBrowsersSendAndRefusesTheRest() {
        #expect(Base64URL.decode("BTBZMqHH6r4Tts7J_aSIgg")?.count == 16)
        #expect(Base64URL.decode("BTBZMqHH6r4Tts7J_aSIgg==")?.count == 16)
        #expect(Base64URL.decode("a+b/") == nil, "standard base64's alphabet")
        #expect(Base64URL.decode("abcde") == nil, "a length base64 cannot have")
        #expect(Base64URL.decode("") == [])
        #expect(Base64URL.decode("BTBZ=MqHH6r4Tts7J_aSIgg") == nil, "padding inside the text")
        #expect(Base64URL.decode("BTBZMqHH6r4Tts7J_aSIg===") == nil, "more padding than base64 has")
        // Eight bytes each, a length base64 can have, so only the character is refused.
        #expect(Base64URL.decode("BTBZ MqH") == nil, "a space")
        #expect(Base64URL.decode("BTBZ\u{e9}qH") == nil, "a character outside ASCII")
        // RFC 4648's test vectors, unpadded as browsers send them.
        #expect(Base64URL.decode("Zg") == Array("f".utf8) && Base64URL.decode("Zm8") == Array("fo".utf8))
        #expect(Base64URL.decode("Zm9v") == Array("foo".utf8) && Base64URL.decode("Zm9vYmFy") == Array("foobar".utf8))
        #expect(Base64URL.decode("-_8") == [0xFB, 0xFF], "the two characters base64url replaces")
    }

    @Test func base64urlDecodesWhatFoundationEncodesForEveryLength() {
        var generator = SystemRandomNumberGenerator()
        for length in 0...70 {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let standard = Data(bytes).base64EncodedString()
            let unpadded = standard.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                .replacingOccurrences(of: "=", with: "")
            #expect(Base64URL.decode(unpadded) == bytes, "\(unpadded)")
            #expect(Base64URL.encode(bytes) == unpadded)
            let padded = unpadded + String(repeating: "=", count: (4 - unpadded.count % 4) % 4)
            #expect(Base64URL.decode(padded) == bytes, "\(padded)")
        }
    }
}
