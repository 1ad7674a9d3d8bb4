import Crypto
import Foundation
import HeraldCore
import Testing
import _CryptoExtras

@testable import HeraldFCM

@Suite struct ServiceAccountTests {
    @Test func readsAGoogleKeyFile() throws {
        let account = try TestAccount.account()
        #expect(account.projectID == TestAccount.projectID)
        #expect(account.privateKeyID == TestAccount.privateKeyID)
        #expect(account.clientEmail == TestAccount.clientEmail)
        #expect(account.tokenURI == TestAccount.tokenURI)
    }

    @Test func readsTheFileFromDisk() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("herald-fcm-\(UUID().uuidString).json").path
        try Data(TestAccount.json()).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(try FCMServiceAccount(jsonFile: path).projectID == TestAccount.projectID)
    }

    @Test func anUnreadableFileSaysSo() {
        #expect(throws: FCMConfigurationError("cannot read the FCM service-account key file /nonexistent/key.json")) {
            try FCMServiceAccount(jsonFile: "/nonexistent/key.json")
        }
    }

    @Test func notJSONSaysSo() {
        #expect(throws: FCMConfigurationError("key.json is not a JSON object (expected a service-account key file)")) {
            try FCMServiceAccount(json: Array("-----BEGIN PRIVATE KEY-----".utf8), source: "key.json")
        }
    }

    @Test(arguments: ["project_id", "private_key_id", "private_key", "client_email", "token_uri"])
    func aMissingFieldIsNamed(_ field: String) {
        #expect(throws: FCMConfigurationError("key.json has no '\(field)' (is it a service-account key file?)")) {
            try FCMServiceAccount(json: TestAccount.json(replacing: [field: nil]), source: "key.json")
        }
        #expect(throws: FCMConfigurationError("key.json has no '\(field)' (is it a service-account key file?)")) {
            try FCMServiceAccount(json: TestAccount.json(replacing: [field: ""]), source: "key.json")
        }
    }

    @Test func aKeyThatIsNotRSAIsRefused() {
        let expected = FCMConfigurationError("key.json has a 'private_key' that is not an RSA private key in PEM (2048 bits or more)")
        #expect(throws: expected) {
            try FCMServiceAccount(
                json: TestAccount.json(replacing: ["private_key": P256.Signing.PrivateKey().pemRepresentation]), source: "key.json")
        }
        #expect(throws: expected) {
            try FCMServiceAccount(json: TestAccount.json(replacing: ["private_key": "not a key"]), source: "key.json")
        }
    }

    @Test func anotherKindOfCredentialIsRefused() {
        #expect(throws: FCMConfigurationError("key.json is a 'authorized_user' credential, not a service-account key")) {
            try FCMServiceAccount(json: TestAccount.json(replacing: ["type": "authorized_user"]), source: "key.json")
        }
    }

    @Test func theDescriptionNeverShowsTheKey() throws {
        let account = try TestAccount.account()
        for text in ["\(account)", String(reflecting: account)] {
            #expect(text.contains(TestAccount.clientEmail))
            #expect(!text.contains("PRIVATE KEY"))
        }
    }

    @Test func theAssertionIsAnRS256JWTForFCM() throws {
        let account = try TestAccount.account()
        let jwt = try account.assertion(issuedAt: 1_700_000_000)
        let parts = jwt.split(separator: ".", omittingEmptySubsequences: false)
        try #require(parts.count == 3)
        let header = try JSONSerialization.jsonObject(with: Data(#require(base64URLDecode(parts[0])))) as? [String: String]
        #expect(header == ["alg": "RS256", "typ": "JWT", "kid": TestAccount.privateKeyID])
        let claims = try JSONSerialization.jsonObject(with: Data(#require(base64URLDecode(parts[1])))) as? [String: Any]
        #expect(claims?["iss"] as? String == TestAccount.clientEmail)
        #expect(claims?["scope"] as? String == "https://www.googleapis.com/auth/firebase.messaging")
        #expect(claims?["aud"] as? String == TestAccount.tokenURI)
        #expect((claims?["iat"] as? NSNumber)?.int64Value == 1_700_000_000)
        #expect((claims?["exp"] as? NSNumber)?.int64Value == 1_700_003_600)
        #expect(claims?.count == 5)

        let signature = _RSA.Signing.RSASignature(rawRepresentation: try #require(base64URLDecode(parts[2])))
        let input = Array(parts[0].utf8) + [UInt8(ascii: ".")] + Array(parts[1].utf8)
        let publicKey = TestAccount.key.publicKey
        #expect(publicKey.isValidSignature(signature, for: SHA256.hash(data: input), padding: .insecurePKCS1v1_5))
        #expect(!publicKey.isValidSignature(signature, for: SHA256.hash(data: input + [0x20]), padding: .insecurePKCS1v1_5))
    }

    @Test func theTokenRequestIsAFormWithTheAssertion() throws {
        let account = try TestAccount.account()
        let body = String(decoding: try account.tokenRequestBody(issuedAt: 1_700_000_000), as: UTF8.self)
        #expect(
            body == "grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer&assertion=" + (try account.assertion(issuedAt: 1_700_000_000)))
    }
}
