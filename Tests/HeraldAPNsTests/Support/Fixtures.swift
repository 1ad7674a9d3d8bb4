import APNsMock
import Foundation
import HeraldAPNs
import HeraldCore
import HeraldCurl
import HeraldSigning
import HeraldTestSupport
import Testing

/// Paths into the repository's fixtures/ and ways to start the mock and a client against it.
enum Fixtures {
    static func path(_ relative: String) -> String { FixtureFiles.path(relative) }

    static let topic = FixtureFiles.topic
    static let teamID = FixtureFiles.teamID
    static let keyID = FixtureFiles.keyID
    static var keyFile: String { FixtureFiles.keyFile() }
    static var caFile: String { FixtureFiles.caFile }

    static func signingKey(_ id: String = keyID, team: String = teamID) throws -> APNsSigningKey {
        try APNsSigningKey(keyID: id, teamID: team, p8File: path("fixtures/keys/AuthKey_\(id).p8"))
    }

    enum Transport: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case tls, cleartext
        var testDescription: String { rawValue }
    }

    /// A mock APNs on an ephemeral port that knows the test key.
    static func mock(
        _ transport: Transport = .tls, certificateAuth: Bool = false, maxConcurrentStreams: Int = 1000,
        clock: (any WallClock)? = nil
    ) async throws -> APNsMock {
        let mockTransport: APNsMockConfiguration.Transport =
            switch transport {
            case .tls: .tls(certificateChainFile: path("fixtures/tls/server.crt"), privateKeyFile: path("fixtures/tls/server.key"))
            case .cleartext: .cleartext
            }
        let authentication: APNsMockConfiguration.Authentication =
            certificateAuth
            ? .certificate(trustedCAFile: caFile)
            : .token([try APNsMockSigningKey(keyId: keyID, teamId: teamID, p8File: keyFile)])
        var configuration = APNsMockConfiguration(transport: mockTransport, authentication: authentication)
        configuration.maxConcurrentStreams = maxConcurrentStreams
        configuration.topics = [topic]
        if let clock { configuration.now = { Double(clock.now.milliseconds) / 1000 } }
        return try await APNsMock.start(configuration)
    }

    /// A client for `mock` with token auth (or the given credentials).
    static func client(
        for mock: APNsMock, credentials: APNsCredentials? = nil, connections: Int = 2, streams: Int = 500,
        requestTimeout: Duration = .seconds(20), idleReconnect: Duration = .seconds(ConnectionIdle.defaultSeconds),
        clock: any WallClock = SystemClock(), caFile: String? = caFile
    ) throws -> APNsClient {
        try APNsClient(
            configuration: APNsClientConfiguration(
                environment: .custom(url: mock.baseURL, caFile: mock.baseURL.hasPrefix("https") ? caFile : nil),
                credentials: try credentials ?? .token(signingKey()), connections: connections,
                streamsPerConnection: streams, connectTimeout: .seconds(5), requestTimeout: requestTimeout,
                idleReconnect: idleReconnect, clock: clock))
    }

    static let payload = APNsPayload(string: #"{"aps":{"alert":{"title":"Hello","body":"from Herald"}}}"#)

    /// Distinct 64-character hex tokens.
    static func token(_ index: Int) -> String {
        let hex = String(index, radix: 16)
        return "ab" + String(repeating: "0", count: 62 - hex.count) + hex
    }

    static func notification(_ index: Int, payload: APNsPayload = payload) -> APNsNotification {
        APNsNotification(deviceToken: token(index), payload: payload, topic: topic)
    }
}

extension APNsClient {
    /// Sends `notifications` through the streaming API and returns every outcome by index.
    func sendAll(_ notifications: [APNsNotification], maxInFlight: Int? = nil) async -> [Int: APNsOutcome] {
        let stream = makeSendStream(of: Int.self, maxInFlight: maxInFlight)
        return await withTaskGroup(of: [Int: APNsOutcome].self) { group in
            group.addTask {
                var outcomes: [Int: APNsOutcome] = [:]
                for await delivery in stream.results {
                    precondition(outcomes[delivery.tag] == nil, "two outcomes for one notification")
                    outcomes[delivery.tag] = delivery.outcome
                }
                return outcomes
            }
            for (index, notification) in notifications.enumerated() { await stream.submit(notification, tag: index) }
            stream.finish()
            return await group.next()!
        }
    }
}
