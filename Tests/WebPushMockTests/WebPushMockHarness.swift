import Crypto
import Foundation
import HeraldCore
import HeraldCurl
import HeraldTestSupport
import Synchronization
import WebPushMock

/// A mock Web Push service on port 0 over TLS (ALPN h2 only, so every push is HTTP/2), a settable
/// clock, the fixture VAPID key, and the client side a test needs: a VAPID header (or a wrong one),
/// an encrypted body for a derived subscription, a push.
final class WebPushMockHarness: Sendable {
    static let vapidKeyFile = FixtureFiles.path("fixtures/webpush/vapid-test.pem")
    /// The fixture key's public key, as fixtures/webpush/README.md prints it.
    static let vapidPublicKey = "BO0XScBpV5VYGCxt0Z1alo3aX4XTiYm4fbrT3trItMipDc3gqIdsJvgroz5lIhuIFxiefqg5qFbR1qPylPXnrfI"
    static let subject = "mailto:ops@example.com"

    let mock: WebPushMock
    let clock: TestClock
    let vapidKey: P256.Signing.PrivateKey

    private init(mock: WebPushMock, clock: TestClock, vapidKey: P256.Signing.PrivateKey) {
        self.mock = mock
        self.clock = clock
        self.vapidKey = vapidKey
    }

    static func start(
        requiredPublicKey: String? = nil, decrypt: Bool = true, controlPort: Int? = nil
    ) async throws -> WebPushMockHarness {
        let clock = TestClock()
        var configuration = WebPushMockConfiguration(
            transport: .tls(certificateChainFile: FixtureFiles.serverCertificate, privateKeyFile: FixtureFiles.serverKey))
        configuration.allowHTTP1 = false
        configuration.threads = 1
        configuration.now = { clock.now }
        configuration.requiredPublicKey = requiredPublicKey
        configuration.decrypt = decrypt
        configuration.controlPort = controlPort
        let key = try P256.Signing.PrivateKey(pemRepresentation: String(contentsOfFile: vapidKeyFile, encoding: .utf8))
        return WebPushMockHarness(mock: try await WebPushMock.start(configuration), clock: clock, vapidKey: key)
    }

    /// A VAPID header for this mock; each claim can be made wrong (nil leaves it out).
    func authorization(
        audience: String? = nil, expiresIn: Double? = 3600, subject: String? = subject, key: P256.Signing.PrivateKey? = nil,
        signer: P256.Signing.PrivateKey? = nil
    ) throws -> String {
        let claims = WebPushTestSender.claims(
            audience: audience ?? mock.origin(), expiresAt: expiresIn.map { clock.now + $0 }, subject: subject)
        return try WebPushTestSender.authorization(key: key ?? vapidKey, claims: claims, signer: signer)
    }

    /// `plaintext` encrypted for derived subscription `id`, as Herald would send it.
    static func body(_ plaintext: String, for id: String, delimiter: UInt8 = 2) throws -> [UInt8] {
        let (privateKey, auth) = WebPushMock.subscriptionKeys(id: id)
        return try WebPushTestSender.encrypt(
            Array(plaintext.utf8), p256dh: Array(privateKey.publicKey.x963Representation), auth: auth, delimiter: delimiter)
    }

    /// POSTs to `/push/<id>`: by default a valid push of "hello" with `TTL: 60`; every part can be
    /// replaced (a nil header is left out; `authorization` nil: a valid one).
    func push(
        to id: String = "alice", _ plaintext: String = "hello", body: [UInt8]? = nil, authorization: String? = nil,
        withoutAuthorization: Bool = false, ttl: String? = "60", urgency: String? = nil, topic: String? = nil,
        contentEncoding: String? = "aes128gcm", path: String? = nil
    ) async throws -> CurlTransfer.Response {
        var headers = ["Content-Type: application/octet-stream"]
        if !withoutAuthorization { headers.append("Authorization: \(try authorization ?? self.authorization())") }
        if let ttl { headers.append("TTL: \(ttl)") }
        if let urgency { headers.append("Urgency: \(urgency)") }
        if let topic { headers.append("Topic: \(topic)") }
        if let contentEncoding { headers.append("Content-Encoding: \(contentEncoding)") }
        let url = path.map { mock.origin() + $0 } ?? mock.endpoint(id: id)
        let transfer = CurlTransfer(
            method: "POST", url: url, headers: headers, body: try body ?? Self.body(plaintext, for: id), timeoutMilliseconds: 5_000,
            caFile: FixtureFiles.caFile, ignoreProxies: true, capturedHeaders: ["location", "retry-after", "ttl", "content-type"])
        return try await transfer.perform().get()
    }

    func shutdown() async throws {
        try await mock.shutdown()
    }
}

/// Epoch seconds a test moves by hand.
final class TestClock: Sendable {
    private let seconds = Mutex<Double>(Date().timeIntervalSince1970)

    var now: Double { seconds.withLock { $0 } }

    func advance(by interval: Double) {
        seconds.withLock { $0 += interval }
    }
}

/// The parsed JSON of an answer's body.
func json(_ response: CurlTransfer.Response) -> [String: Any] {
    (try? JSONSerialization.jsonObject(with: Data(response.body))) as? [String: Any] ?? [:]
}

/// The `message` of an error answer.
func message(_ response: CurlTransfer.Response) -> String {
    json(response)["message"] as? String ?? ""
}
