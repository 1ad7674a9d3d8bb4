import Crypto
import Foundation
import HeraldCore
import HeraldTestSupport
import Testing
import WebPushMock

/// Derived subscriptions: their JSON as a browser gives it, their keys, and the receiver's decryption
/// held to RFC 8291's own example.
@Suite struct WebPushMockSubscriptionTests {
    @Test func aSubscriptionIsTheJSONABrowserGives() async throws {
        let harness = try await WebPushMockHarness.start()
        let text = harness.mock.subscription(id: "alice")
        let endpoint = "https://127.0.0.1:\(harness.mock.port)/push/alice"
        #expect(text.hasPrefix(#"{"endpoint":"\#(endpoint)","expirationTime":null,"keys":{"p256dh":""#))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        #expect(Set(object.keys) == ["endpoint", "expirationTime", "keys"] && object["expirationTime"] is NSNull)
        let keys = try #require(object["keys"] as? [String: String])
        let p256dh = try #require(keys["p256dh"])
        let auth = try #require(keys["auth"])
        #expect(!p256dh.contains("=") && !auth.contains("=") && p256dh.count == 87 && auth.count == 22)
        let (privateKey, secret) = WebPushMock.subscriptionKeys(id: "alice")
        #expect(Base64URL.decode(p256dh) == Array(privateKey.publicKey.x963Representation))
        #expect(Base64URL.decode(auth) == secret)
        // Herald's own reading of a browser's subscription takes it (the endpoint is a loopback address).
        let parsed = try WebPushSubscription(parsing: text, hosts: .init(allowPrivateHosts: true))
        #expect(parsed.endpoint == endpoint && parsed.p256dh.first == 4 && parsed.auth.count == 16)
        try await harness.shutdown()
    }

    @Test func keysAreDerivedFromTheIdAlone() {
        let first = WebPushMock.subscriptionKeys(id: "alice")
        let again = WebPushMock.subscriptionKeys(id: "alice")
        let other = WebPushMock.subscriptionKeys(id: "alicf")
        #expect(first.privateKey.rawRepresentation == again.privateKey.rawRepresentation && first.auth == again.auth)
        #expect(first.privateKey.rawRepresentation != other.privateKey.rawRepresentation && first.auth != other.auth)
        #expect(Array(first.privateKey.rawRepresentation) == Array(SHA256.hash(data: Data("herald-webpush-mock key alice".utf8))))
        #expect(first.auth == Array(SHA256.hash(data: Data("herald-webpush-mock auth alice".utf8)).prefix(16)))
        #expect(
            WebPushMock.subscription(id: "alice", baseURL: "https://push.test/")
                == WebPushMock.subscription(id: "alice", baseURL: "https://push.test"))
        #expect(
            WebPushMock.subscription(id: "x", baseURL: "http://127.0.0.1:2299").hasPrefix(#"{"endpoint":"http://127.0.0.1:2299/push/x","#))
        #expect(WebPushMock.isValidSubscriptionID("a-Z_9") && !WebPushMock.isValidSubscriptionID("a.b"))
        #expect(!WebPushMock.isValidSubscriptionID("") && !WebPushMock.isValidSubscriptionID(String(repeating: "a", count: 201)))
    }

    /// The README prints alice's subscription: the derivation must not drift from it.
    @Test func theReadmesSubscriptionIsTheDerivedOne() throws {
        let readme = try String(contentsOfFile: FixtureFiles.path("fixtures/webpush-mock/README.md"), encoding: .utf8)
        #expect(readme.contains(WebPushMock.subscription(id: "alice", baseURL: "https://127.0.0.1:2299")))
    }

    // RFC 8291, Appendix A: the receiver's keys and the sender's body.
    static let receiverPrivate = "q1dXpw3UpT5VOmu_cf_v6ih07Aems3njxI-JWgLcM94"
    static let auth = "BTBZMqHH6r4Tts7J_aSIgg"
    static let body =
        "DGv6ra1nlYgDCS1FRnbzlwAAEABBBP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A_yl95bQpu6cVPTpK4Mqgkf1CXztLVBSt2Ks3oZwbuwXPXLWyouBWLVWGNWQexSgSxsj_Qulcy4a-fN"

    @Test func theRFCsExampleOpens() throws {
        let receiver = try P256.KeyAgreement.PrivateKey(rawRepresentation: try #require(Base64URL.decode(Self.receiverPrivate)))
        let auth = try #require(Base64URL.decode(Self.auth))
        var body = try #require(Base64URL.decode(Self.body))
        let plaintext = try WebPushMockDecryption.open(body, privateKey: receiver, auth: auth)
        #expect(String(decoding: plaintext, as: UTF8.self) == "When I grow up, I want to be a watermelon")
        body[body.count - 20] ^= 1
        #expect(throws: WebPushMockDecryptionError.self) { try WebPushMockDecryption.open(body, privateKey: receiver, auth: auth) }
        #expect(throws: WebPushMockDecryptionError.self) {
            try WebPushMockDecryption.open(
                try #require(Base64URL.decode(Self.body)), privateKey: receiver, auth: Array(repeating: 0, count: 16))
        }
    }

    @Test func theFixtureVAPIDKeyIsTheOneItsReadmePrints() throws {
        let pem = try String(contentsOfFile: WebPushMockHarness.vapidKeyFile, encoding: .utf8)
        #expect(pem.hasPrefix("-----BEGIN EC PRIVATE KEY-----"))
        let key = try P256.Signing.PrivateKey(pemRepresentation: pem)
        #expect(Base64URL.encode(Array(key.publicKey.x963Representation)) == WebPushMockHarness.vapidPublicKey)
        let readme = try String(contentsOfFile: FixtureFiles.path("fixtures/webpush/README.md"), encoding: .utf8)
        #expect(readme.contains(WebPushMockHarness.vapidPublicKey) && readme.contains("TEST ONLY"))
    }
}
