import Crypto
import Foundation
import HeraldCore
import HeraldSigning
import Testing

@testable import HeraldAPNs

@Suite struct ProviderTokenTests {
    static func decode(_ part: Substring) throws -> Data {
        var text = part.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while text.count % 4 != 0 { text += "=" }
        return try #require(Data(base64Encoded: text))
    }

    @Test func tokenIsAnES256JWTWithRawSignatureAndNumericIat() throws {
        let privateKey = P256.Signing.PrivateKey()
        let key = APNsSigningKey(keyID: "KEY1234567", teamID: "TEAM123456", privateKey: privateKey)
        let clock = ManualClock(Timestamp(milliseconds: 1_700_000_000_500))
        let issued = try APNsProviderToken(key: key, clock: clock).token()
        let parts = issued.jwt.split(separator: ".", omittingEmptySubsequences: false)
        try #require(parts.count == 3)
        #expect(!issued.jwt.contains("="))
        let header = try JSONSerialization.jsonObject(with: Self.decode(parts[0])) as? [String: String]
        #expect(header == ["alg": "ES256", "kid": "KEY1234567"])
        let claims = try JSONSerialization.jsonObject(with: Self.decode(parts[1])) as? [String: Any]
        #expect(claims?["iss"] as? String == "TEAM123456")
        #expect((claims?["iat"] as? NSNumber)?.int64Value == 1_700_000_000)
        #expect(String(decoding: try Self.decode(parts[1]), as: UTF8.self).contains(#""iat":1700000000"#))
        let signatureBytes = try Self.decode(parts[2])
        #expect(signatureBytes.count == 64)
        let signature = try P256.Signing.ECDSASignature(rawRepresentation: signatureBytes)
        #expect(privateKey.publicKey.isValidSignature(signature, for: Data((parts[0] + "." + parts[1]).utf8)))
    }

    @Test func oneTokenIsReusedUntilFiftyMinutesThenResigned() throws {
        let key = APNsSigningKey(keyID: "KEY1234567", teamID: "TEAM123456", privateKey: P256.Signing.PrivateKey())
        let clock = ManualClock(Timestamp(milliseconds: 1_700_000_000_000))
        let provider = APNsProviderToken(key: key, clock: clock)
        let first = try provider.token()
        clock.advance(milliseconds: 49 * 60_000)
        #expect(try provider.token() == first)
        clock.advance(milliseconds: 60_000)
        let second = try provider.token()
        #expect(second != first)
        #expect(second.issuedAt == first.issuedAt + 50 * 60)
    }

    @Test func expiringAnOldTokenDoesNotDiscardItsReplacement() throws {
        let key = APNsSigningKey(keyID: "KEY1234567", teamID: "TEAM123456", privateKey: P256.Signing.PrivateKey())
        let clock = ManualClock(Timestamp(milliseconds: 1_700_000_000_000))
        let provider = APNsProviderToken(key: key, clock: clock)
        let first = try provider.token()
        provider.expire(first)
        clock.advance(milliseconds: 1000)
        let second = try provider.token()
        #expect(second != first)
        provider.expire(first)  // a late answer for the first token
        #expect(try provider.token() == second)
    }

    @Test func aP8FileLoadsAndBadFilesSaySo() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("herald-p8-\(UUID())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let good = dir.appendingPathComponent("AuthKey.p8").path
        try P256.Signing.PrivateKey().pemRepresentation.write(toFile: good, atomically: true, encoding: .utf8)
        #expect(try APNsSigningKey(keyID: "K", teamID: "T", p8File: good).keyID == "K")
        let bad = dir.appendingPathComponent("bad.p8").path
        try "hello".write(toFile: bad, atomically: true, encoding: .utf8)
        #expect(throws: AppleSigningKeyError.self) { try APNsSigningKey(keyID: "K", teamID: "T", p8File: bad) }
        #expect(throws: AppleSigningKeyError.self) {
            try APNsSigningKey(keyID: "K", teamID: "T", p8File: dir.appendingPathComponent("none").path)
        }
    }
}
