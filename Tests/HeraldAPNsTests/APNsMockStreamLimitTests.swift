import APNsMock
import Foundation
import HeraldAPNs
import HeraldSigning
import HeraldTestSupport
import Testing

/// The mock's stream-limit fault, frame by frame: what SETTINGS it sends and when, which streams it refuses
/// or closes the connection for, and that neither counts nor records what it did not process.
///
/// The raw client never acknowledges the SETTINGS: its streams are those of a client that has not read them
/// yet, which is when APNs refuses one (past a limit it has acknowledged, swift-nio-http2 would end the
/// connection with PROTOCOL_ERROR whatever the mode).
@Suite struct APNsMockStreamLimitTests {
    static let body = #"{"aps":{"alert":"hi"}}"#

    @Test func refuseStartsAtOneStreamWidensAfterA200AndNarrowsAfterARejection() async throws {
        let (mock, connection, bearer, firstLimit) = try await Self.connect(.refuse)
        #expect(firstLimit == 1, "a new connection starts at one stream")

        // A second stream while the first is open is refused, and the first goes on.
        try connection.sendHeaders(stream: 1, token: Fixtures.token(1), bearer: bearer, topic: Fixtures.topic)
        try connection.sendHeaders(stream: 3, token: Fixtures.token(3), bearer: bearer, topic: Fixtures.topic)
        let reset = try connection.read { $0.type == RawHTTP2Connection.Frame.rstStream }
        #expect(reset.last?.stream == 3 && reset.last?.errorCode == RawHTTP2Connection.refusedStream)
        try connection.sendData(stream: 1, Self.body)
        #expect(try Self.limitAndStatus(connection, stream: 1) == (1000, true), "the wide limit comes before the first 200")

        // A rejection narrows the limit to one again; the next 200 widens it.
        try connection.sendHeaders(stream: 5, token: Fixtures.token(2), bearer: bearer, topic: Fixtures.topic)
        try connection.sendData(stream: 5, Self.body)
        #expect(try Self.limitAndStatus(connection, stream: 5) == (1, false), "one stream again before the 410")
        try connection.sendHeaders(stream: 7, token: Fixtures.token(4), bearer: bearer, topic: Fixtures.topic)
        try connection.sendHeaders(stream: 9, token: Fixtures.token(5), bearer: bearer, topic: Fixtures.topic)
        let narrowed = try connection.read { $0.type == RawHTTP2Connection.Frame.rstStream }
        #expect(narrowed.last?.stream == 9 && narrowed.last?.errorCode == RawHTTP2Connection.refusedStream)
        try connection.sendData(stream: 7, Self.body)
        #expect(try Self.limitAndStatus(connection, stream: 7) == (1000, true))

        let stats = mock.stats()
        #expect(stats.streamsRefused == 2, "\(stats)")
        #expect(stats.requests == 3 && stats.accepted == 2 && stats.byStatus["410"] == 1, "refused streams are not counted: \(stats)")
        #expect(stats.connectionsClosedForExcess == 0 && stats.connectionsOpened == 1, "\(stats)")
        #expect(mock.notifications().map(\.token) == [Fixtures.token(1), Fixtures.token(4)])
        try await mock.shutdown()
    }

    @Test func closeEndsTheConnectionAndKeepsOnlyWhatItAnswered() async throws {
        let (mock, connection, bearer, firstLimit) = try await Self.connect(.close)
        #expect(firstLimit == 1)
        try connection.sendHeaders(stream: 1, token: Fixtures.token(1), bearer: bearer, topic: Fixtures.topic)
        try connection.sendData(stream: 1, Self.body)
        #expect(try Self.limitAndStatus(connection, stream: 1) == (1000, true))
        try connection.sendHeaders(stream: 3, token: Fixtures.token(2), bearer: bearer, topic: Fixtures.topic)
        try connection.sendData(stream: 3, Self.body)
        #expect(try Self.limitAndStatus(connection, stream: 3) == (1, false))

        // Stream 5 is open (its body not sent) when stream 7 exceeds the limit of one.
        try connection.sendHeaders(stream: 5, token: Fixtures.token(3), bearer: bearer, topic: Fixtures.topic)
        try connection.sendHeaders(stream: 7, token: Fixtures.token(4), bearer: bearer, topic: Fixtures.topic)
        let goAway = try connection.read { $0.type == RawHTTP2Connection.Frame.goAway }.last
        #expect(goAway?.lastStreamID == 5 && goAway?.errorCode == RawHTTP2Connection.protocolError)
        #expect(connection.readsToEnd(), "the mock ends the connection after its GOAWAY")

        let stats = mock.stats()
        #expect(stats.connectionsClosedForExcess == 1 && stats.streamsRefused == 0, "\(stats)")
        #expect(stats.requests == 2 && stats.accepted == 1, "stream 5 was lost unanswered: \(stats)")
        #expect(mock.notifications().map(\.token) == [Fixtures.token(1)])
        try await mock.shutdown()
    }

    @Test func theControlPortSetsTheLimitAndResetRestoresTheConfiguredOne() async throws {
        var configuration = APNsMockConfiguration(
            transport: .cleartext,
            authentication: .token([try APNsMockSigningKey(keyId: Fixtures.keyID, teamId: Fixtures.teamID, p8File: Fixtures.keyFile)]))
        configuration.controlPort = 0
        let mock = try await APNsMock.start(configuration)
        let faults = URL(string: "http://127.0.0.1:\(try #require(mock.controlPort))/control/faults")!
        let set = try await HTTP.send("POST", faults, json: #"{"streamLimit":{"mode":"refuse","wideLimit":500}}"#)
        #expect(set.status == 200 && set.body.contains(#""streamLimit":{"mode":"refuse","wideLimit":500}"#), "\(set)")
        let unknownMode = try await HTTP.send("POST", faults, json: #"{"streamLimit":{"mode":"sometimes"}}"#)
        #expect(unknownMode.status == 400, "\(unknownMode)")
        let zero = try await HTTP.send("POST", faults, json: #"{"streamLimit":{"mode":"close","wideLimit":0}}"#)
        #expect(zero.status == 400 && zero.body.contains("streamLimit.wideLimit"), "\(zero)")

        let bearer = try Self.bearer()
        let connection = try RawHTTP2Connection(port: mock.port)
        #expect(try connection.read { $0.maxConcurrentStreams != nil }.last?.maxConcurrentStreams == 1)
        try connection.sendHeaders(stream: 1, token: Fixtures.token(1), bearer: bearer, topic: Fixtures.topic)
        try connection.sendData(stream: 1, Self.body)
        #expect(try Self.limitAndStatus(connection, stream: 1) == (500, true))

        // Without the fault, an open connection goes back to the configured limit at its next answer.
        let reset = try await HTTP.send("POST", URL(string: "http://127.0.0.1:\(mock.controlPort!)/control/reset")!)
        #expect(reset.status == 200)
        try connection.sendHeaders(stream: 3, token: Fixtures.token(2), bearer: bearer, topic: Fixtures.topic)
        try connection.sendData(stream: 3, Self.body)
        #expect(try Self.limitAndStatus(connection, stream: 3) == (1000, true))
        let stats = try await HTTP.send("GET", URL(string: "http://127.0.0.1:\(mock.controlPort!)/control/stats")!)
        #expect(stats.body.contains(#""connectionsClosedForExcess":0"#) && stats.body.contains(#""streamsRefused":0"#), "\(stats)")
        try await mock.shutdown()
    }

    /// A provider token the mock accepts, for the raw client's `authorization`.
    private static func bearer() throws -> String {
        try APNsProviderToken(key: Fixtures.signingKey()).token().jwt
    }

    /// A cleartext mock with the stream-limit fault in `mode` (and token 2 scripted to be unregistered), a raw
    /// connection to it, a provider token, and the MAX_CONCURRENT_STREAMS of the connection's first SETTINGS.
    private static func connect(
        _ mode: MockStreamLimit
    ) async throws -> (mock: APNsMock, connection: RawHTTP2Connection, bearer: String, firstLimit: Int?) {
        let mock = try await Fixtures.mock(.cleartext)
        mock.setFaults(APNsMockFaults(streamLimit: mode))
        mock.script(token: Fixtures.token(2), .unregistered(timestamp: 1_700_000_000_000))
        let bearer = try bearer()
        let connection = try RawHTTP2Connection(port: mock.port)
        let first = try connection.read { $0.maxConcurrentStreams != nil }
        return (mock, connection, bearer, first.last?.maxConcurrentStreams)
    }

    /// Reads up to the answer on `stream`: the last MAX_CONCURRENT_STREAMS sent before it, and whether it is a 200.
    private static func limitAndStatus(_ connection: RawHTTP2Connection, stream: UInt32) throws -> (Int?, Bool) {
        let frames = try connection.read { $0.type == RawHTTP2Connection.Frame.headers && $0.stream == stream }
        return (frames.compactMap(\.maxConcurrentStreams).last, frames.last?.is200 == true)
    }
}
