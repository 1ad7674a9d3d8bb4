import Crypto
import DeviceCheckMock
import Foundation
import HeraldCore
import HeraldCurl
import HeraldTestSupport
import Synchronization

/// A mock DeviceCheck on port 0 over TLS with the fixture key (TESTKEY001 of TESTTEAM01), a settable
/// clock, and the client side a test needs: signing a JWT (or a wrong one) and calling an endpoint.
final class DeviceCheckMockHarness: Sendable {
    static let keyId = FixtureFiles.keyID
    static let teamId = FixtureFiles.teamID

    let mock: DeviceCheckMock
    let clock: TestClock

    private init(mock: DeviceCheckMock, clock: TestClock) {
        self.mock = mock
        self.clock = clock
    }

    /// `now`: the clock's start, epoch seconds (default: the real time).
    static func start(
        now: Double = Date().timeIntervalSince1970, noStateText: String? = nil, controlPort: Int? = nil
    ) async throws -> DeviceCheckMockHarness {
        let clock = TestClock(now)
        var configuration = DeviceCheckMockConfiguration(
            transport: .tls(certificateChainFile: FixtureFiles.serverCertificate, privateKeyFile: FixtureFiles.serverKey),
            signingKeys: [try DeviceCheckMockSigningKey(keyId: keyId, teamId: teamId, p8File: FixtureFiles.keyFile())])
        configuration.threads = 1
        configuration.now = { clock.seconds }
        configuration.controlPort = controlPort
        if let noStateText { configuration.noStateText = noStateText }
        return DeviceCheckMockHarness(mock: try await DeviceCheckMock.start(configuration), clock: clock)
    }

    /// An ES256 JWT as Apple wants it; each argument can be made wrong. `signingKeyId` names the
    /// fixture key that signs (default: the one `kid` names).
    func jwt(
        kid: String = keyId, iss: String = teamId, issuedAt: Double? = nil, signingKeyId: String? = nil
    ) throws -> String {
        let pem = try String(contentsOfFile: FixtureFiles.keyFile(signingKeyId ?? kid), encoding: .utf8)
        let key = try P256.Signing.PrivateKey(pemRepresentation: pem)
        let iat = Int64(issuedAt ?? clock.seconds)
        let header = #"{"alg":"ES256","kid":"\#(kid)"}"#
        let claims = #"{"iss":"\#(iss)","iat":\#(iat)}"#
        let input = Base64URL.encode(Array(header.utf8)) + "." + Base64URL.encode(Array(claims.utf8))
        let signature = try key.signature(for: Data(input.utf8))
        return input + "." + Base64URL.encode(Array(signature.rawRepresentation))
    }

    /// A body with every field, and `extra` spliced in (`"bit0":true`).
    static func body(token: String, transaction: String = UUID().uuidString, extra: String = "") -> String {
        let millis = Int64(Date().timeIntervalSince1970 * 1000)
        var body = #"{"device_token":"\#(token)","transaction_id":"\#(transaction)","timestamp":\#(millis)"#
        if !extra.isEmpty { body += "," + extra }
        return body + "}"
    }

    /// POSTs `body` to `/v1/<endpoint>` with `authorization: Bearer <jwt>` (nil: a valid one).
    func call(_ endpoint: DeviceCheckEndpoint, _ body: String, jwt: String? = nil) async throws -> CurlTransfer.Response {
        try await post(endpoint.path, body, authorization: "Bearer " + (try jwt ?? self.jwt()))
    }

    func post(_ path: String, _ body: String, authorization: String?) async throws -> CurlTransfer.Response {
        var headers = ["Content-Type: application/json"]
        if let authorization { headers.append("Authorization: \(authorization)") }
        let transfer = CurlTransfer(
            method: "POST", url: mock.baseURL + path, headers: headers, body: Array(body.utf8), timeoutMilliseconds: 5_000,
            caFile: FixtureFiles.caFile, ignoreProxies: true, capturedHeaders: ["content-type"])
        return try await transfer.perform().get()
    }

    func shutdown() async throws {
        try await mock.shutdown()
    }
}

/// Epoch seconds a test moves by hand; a Herald `WallClock` too, so a provider token signs with it.
final class TestClock: WallClock, Sendable {
    private let value: Mutex<Double>

    init(_ seconds: Double) {
        value = Mutex(seconds)
    }

    var seconds: Double { value.withLock { $0 } }
    var now: Timestamp { Timestamp(milliseconds: Int64(seconds * 1000)) }

    func advance(by interval: Double) {
        value.withLock { $0 += interval }
    }
}

/// An answer's body as text.
func text(_ response: CurlTransfer.Response) -> String {
    String(decoding: response.body, as: UTF8.self)
}

/// An answer's body as a JSON object, or nil when it is not one.
func jsonObject(_ response: CurlTransfer.Response) -> [String: Any]? {
    (try? JSONSerialization.jsonObject(with: Data(response.body))) as? [String: Any]
}
