import APNsMock
import Foundation
import HeraldAPNs
import HeraldCore
import HeraldCurl
import HeraldSigning
import HeraldTestSupport

/// A mock APNs over TLS with its channel-management host, and the raw client side the broadcast tests
/// need: each request is one `CurlTransfer` (HTTP/2 over TLS, a connection of its own) with a provider
/// token signed by HeraldSigning, or without one, or with a token a test spoils.
struct BroadcastMockHarness {
    static let topic = Fixtures.topic
    /// A second bundle the test key covers.
    static let otherTopic = "com.example.herald.other"
    static let captured = ["apns-request-id", "apns-channel-id", "apns-unique-id", "apns-id", "content-type"]

    let mock: APNsMock

    /// `store`: shared with another mock; `channelLimit`: for a store of the mock's own.
    static func start(
        environment: APNsMockEnvironment = .sandbox, store: APNsChannelStore? = nil, channelLimit: Int = 10_000,
        controlPort: Int? = nil
    ) async throws -> BroadcastMockHarness {
        var configuration = APNsMockConfiguration(
            transport: .tls(certificateChainFile: FixtureFiles.serverCertificate, privateKeyFile: FixtureFiles.serverKey),
            authentication: .token([try APNsMockSigningKey(keyId: Fixtures.keyID, teamId: Fixtures.teamID, p8File: Fixtures.keyFile)]))
        configuration.topics = [topic, otherTopic]
        configuration.threads = 1
        configuration.managePort = 0
        configuration.controlPort = controlPort
        configuration.environment = environment
        configuration.channelStore = store ?? APNsChannelStore(channelLimit: channelLimit)
        return BroadcastMockHarness(mock: try await APNsMock.start(configuration))
    }

    /// `authorization: bearer <jwt>` issued `age` seconds ago by the fixture key.
    static func bearer(age: Int64 = 0) throws -> String {
        let clock = FixedClock(Timestamp(milliseconds: (Int64(Date().timeIntervalSince1970) - age) * 1000))
        return try APNsProviderToken(key: try Fixtures.signingKey(), clock: clock).token().headerLine
    }

    /// A request to the channel-management host; `authorization` nil sends none.
    func manage(
        _ method: String, _ path: String, headers: [String] = [], body: String? = nil, authorization: String? = ""
    ) async throws -> CurlTransfer.Response {
        try await perform(method, mock.manageBaseURL! + path, headers: headers, body: body, authorization: authorization)
    }

    /// `POST /4/broadcasts/apps/<bundle>` on the APNs host with the given headers.
    func broadcast(
        bundle: String = topic, headers: [String], body: String?, authorization: String? = ""
    ) async throws -> CurlTransfer.Response {
        try await perform("POST", mock.baseURL + "/4/broadcasts/apps/" + bundle, headers: headers, body: body, authorization: authorization)
    }

    /// The headers of a valid broadcast on `channel`.
    static func broadcastHeaders(channel: String, priority: String = "10", expiration: String = "0") -> [String] {
        ["apns-channel-id: \(channel)", "apns-push-type: liveactivity", "apns-priority: \(priority)", "apns-expiration: \(expiration)"]
    }

    /// `POST /3/device/<token>` on the APNs host.
    func device(_ token: String, headers: [String], body: String) async throws -> CurlTransfer.Response {
        try await perform("POST", mock.baseURL + "/3/device/" + token, headers: headers, body: body, authorization: "")
    }

    /// Creates a channel and returns its id.
    func createChannel(policy: Int = 0, bundle: String = topic) async throws -> String {
        let response = try await manage(
            "POST", "/1/apps/\(bundle)/channels", body: #"{"message-storage-policy":\#(policy),"push-type":"LiveActivity"}"#)
        guard response.status == 201, let id = response.headers["apns-channel-id"] else {
            throw HarnessFailure("create answered \(response.status) \(reason(response) ?? "")")
        }
        return id
    }

    /// `authorization` "" means a valid token.
    private func perform(
        _ method: String, _ url: String, headers: [String], body: String?, authorization: String?
    ) async throws -> CurlTransfer.Response {
        var lines = headers + ["Expect:"]
        if let authorization {
            let line = try authorization.isEmpty ? Self.bearer() : "authorization: \(authorization)"
            lines.append(line)
        }
        let transfer = CurlTransfer(
            method: method, url: url, headers: lines, body: body.map { Array($0.utf8) }, timeoutMilliseconds: 10_000,
            caFile: FixtureFiles.caFile, ignoreProxies: true, capturedHeaders: Self.captured)
        return try await transfer.perform().get()
    }

    func shutdown() async throws {
        try await mock.shutdown()
    }
}

/// A wall clock stopped at one instant (a provider token issued in the past).
struct FixedClock: WallClock {
    let now: Timestamp
    init(_ now: Timestamp) { self.now = now }
}

struct HarnessFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// The `reason` of an error answer's JSON body.
func reason(_ response: CurlTransfer.Response) -> String? {
    let object = (try? JSONSerialization.jsonObject(with: Data(response.body))) as? [String: Any]
    return object?["reason"] as? String
}

/// The answer's body as a JSON object.
func object(_ response: CurlTransfer.Response) -> [String: Any]? {
    (try? JSONSerialization.jsonObject(with: Data(response.body))) as? [String: Any]
}

/// A canonical lowercase UUID, 8-4-4-4-12.
func isLowercaseUUID(_ text: String?) -> Bool {
    guard let text, let uuid = UUID(uuidString: text) else { return false }
    return uuid.uuidString.lowercased() == text
}
