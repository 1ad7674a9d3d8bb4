import FCMMock
import Foundation
import HeraldCore
import HeraldCurl
import HeraldTestSupport
import Synchronization
import _CryptoExtras

/// A mock FCM on port 0 over TLS with the fixture service account, a settable clock, and the
/// client side a test needs: signing an assertion, fetching a token, sending a message.
final class FCMMockHarness: Sendable {
    static let accountFile = FixtureFiles.path("fixtures/fcm/service-account.json")
    static let rogueAccountFile = FixtureFiles.path("fixtures/fcm/rogue-service-account.json")
    static let scope = "https://www.googleapis.com/auth/firebase.messaging"

    let mock: FCMMock
    let clock: TestClock

    private init(mock: FCMMock, clock: TestClock) {
        self.mock = mock
        self.clock = clock
    }

    static func start(tokenLifetime: Int = 60) async throws -> FCMMockHarness {
        let clock = TestClock()
        var configuration = FCMMockConfiguration(
            transport: .tls(
                certificateChainFile: FixtureFiles.serverCertificate, privateKeyFile: FixtureFiles.serverKey),
            serviceAccounts: [try FCMServiceAccount(keyFile: accountFile)])
        configuration.accessTokenLifetime = tokenLifetime
        configuration.threads = 1
        configuration.now = { clock.now }
        return FCMMockHarness(mock: try await FCMMock.start(configuration), clock: clock)
    }

    /// A JWT assertion signed with a key file's key; `claims` replace or add to the usual ones.
    func assertion(
        keyFile: String = accountFile, claims overrides: [String: Any] = [:], signWith otherKeyFile: String? = nil
    ) throws -> String {
        let account = try Self.keyFields(keyFile)
        let signer = try Self.keyFields(otherKeyFile ?? keyFile)
        let key = try _RSA.Signing.PrivateKey(pemRepresentation: signer["private_key"]!)
        let now = Int(clock.now)
        var claims: [String: Any] = [
            "iss": account["client_email"]!, "scope": Self.scope, "aud": mock.tokenURL, "iat": now, "exp": now + 3600,
        ]
        claims.merge(overrides) { _, new in new }
        let header: [String: Any] = ["alg": "RS256", "typ": "JWT", "kid": account["private_key_id"]!]
        let input =
            Base64URL.encode(Array(try JSONSerialization.data(withJSONObject: header)))
            + "." + Base64URL.encode(Array(try JSONSerialization.data(withJSONObject: claims)))
        let signature = try key.signature(for: Data(input.utf8), padding: .insecurePKCS1v1_5)
        return input + "." + Base64URL.encode(Array(signature.rawRepresentation))
    }

    func requestToken(assertion: String) async throws -> CurlTransfer.Response {
        let body = "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=\(assertion)"
        return try await perform(
            "POST", mock.tokenURL, headers: ["Content-Type: application/x-www-form-urlencoded"], body: body)
    }

    /// A fresh access token for the fixture account.
    func accessToken() async throws -> String {
        let response = try await requestToken(assertion: try assertion())
        let json = try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]
        guard response.status == 200, let token = json?["access_token"] as? String else {
            throw TestFailure("token request answered \(response.status): \(String(decoding: response.body, as: UTF8.self))")
        }
        return token
    }

    func send(_ message: String, accessToken: String, project: String = "herald-test") async throws
        -> CurlTransfer.Response
    {
        try await perform(
            "POST", "\(mock.baseURL)/v1/projects/\(project)/messages:send",
            headers: ["Authorization: Bearer \(accessToken)", "Content-Type: application/json"],
            body: #"{"message":\#(message)}"#)
    }

    private func perform(_ method: String, _ url: String, headers: [String], body: String) async throws
        -> CurlTransfer.Response
    {
        let transfer = CurlTransfer(
            method: method, url: url, headers: headers, body: Array(body.utf8), timeoutMilliseconds: 5_000,
            caFile: FixtureFiles.caFile, ignoreProxies: true, capturedHeaders: ["retry-after"])
        return try await transfer.perform().get()
    }

    func shutdown() async throws {
        try await mock.shutdown()
    }

    private static func keyFields(_ file: String) throws -> [String: String] {
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: file)))
        return (json as? [String: Any] ?? [:]).compactMapValues { $0 as? String }
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

struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// The parsed JSON of an answer's body.
func json(_ response: CurlTransfer.Response) -> [String: Any] {
    (try? JSONSerialization.jsonObject(with: Data(response.body))) as? [String: Any] ?? [:]
}

/// `error.details[0].errorCode` of an FCM error answer.
func errorCode(_ response: CurlTransfer.Response) -> String? {
    let error = json(response)["error"] as? [String: Any]
    return ((error?["details"] as? [[String: Any]])?.first)?["errorCode"] as? String
}
