import DeviceCheckMock
import Foundation
import HeraldAPNs
import HeraldCurl
import HeraldSigning
import HeraldTestSupport
import Testing

/// The mock's JWT check: Apple's 401 for every token that is not the right key's, team's and hour's.
@Suite struct DeviceCheckMockAuthTests {
    static let device = "ZGV2aWNl"
    static let refusal = "Unable to verify authorization token"

    @Test func acceptsHeraldsOwnProviderToken() async throws {
        let harness = try await DeviceCheckMockHarness.start()
        let key = try APNsSigningKey(
            keyID: DeviceCheckMockHarness.keyId, teamID: DeviceCheckMockHarness.teamId, p8File: FixtureFiles.keyFile())
        let token = try APNsProviderToken(key: key, clock: harness.clock).token()
        let response = try await harness.call(.validateDeviceToken, DeviceCheckMockHarness.body(token: Self.device), jwt: token.jwt)
        #expect(response.status == 200)
        // The same string again on the same connection or another: still accepted.
        let again = try await harness.call(.queryTwoBits, DeviceCheckMockHarness.body(token: Self.device), jwt: token.jwt)
        #expect(again.status == 200)
        try await harness.shutdown()
    }

    @Test func refusesWrongKeysTeamsSignaturesAndTimes() async throws {
        let harness = try await DeviceCheckMockHarness.start()
        let now = harness.clock.seconds
        let wrong: [(String, String)] = [
            ("unknown key id", try harness.jwt(kid: "ROGUEKEY01")),
            ("a configured key id signed by another key", try harness.jwt(signingKeyId: "ROGUEKEY01")),
            ("another key of the fixtures, not configured", try harness.jwt(kid: "TESTKEY002")),
            ("wrong team", try harness.jwt(iss: "OTHERTEAM1")),
            ("issued over an hour ago", try harness.jwt(issuedAt: now - 3_601)),
            ("issued over a minute ahead", try harness.jwt(issuedAt: now + 61)),
            ("not a JWT", "not.a.jwt"),
        ]
        for (reason, jwt) in wrong {
            let response = try await harness.call(.queryTwoBits, DeviceCheckMockHarness.body(token: Self.device), jwt: jwt)
            #expect(response.status == 401, "\(reason)")
            #expect(text(response) == Self.refusal, "\(reason)")
        }
        let missing = try await harness.post(
            DeviceCheckEndpoint.queryTwoBits.path, DeviceCheckMockHarness.body(token: Self.device), authorization: nil)
        #expect(missing.status == 401 && text(missing) == Self.refusal)
        let basic = try await harness.post(
            DeviceCheckEndpoint.queryTwoBits.path, DeviceCheckMockHarness.body(token: Self.device), authorization: "Basic abc")
        #expect(basic.status == 401)
        // Within the limits on both sides: accepted.
        let oldButValid = try await harness.call(
            .queryTwoBits, DeviceCheckMockHarness.body(token: Self.device), jwt: try harness.jwt(issuedAt: now - 3_500))
        #expect(oldButValid.status == 200)
        let slightlyAhead = try await harness.call(
            .queryTwoBits, DeviceCheckMockHarness.body(token: Self.device), jwt: try harness.jwt(issuedAt: now + 50))
        #expect(slightlyAhead.status == 200)
        let stats = harness.mock.stats()
        #expect(stats.jwtRejections == wrong.count + 2)
        #expect(stats.byStatus == ["401": wrong.count + 2, "200": 2])
        #expect(harness.mock.requests().count == 2)
        try await harness.shutdown()
    }

    @Test func aTokenGoesStaleAsTheClockMoves() async throws {
        let harness = try await DeviceCheckMockHarness.start()
        let jwt = try harness.jwt()
        #expect(try await harness.call(.queryTwoBits, DeviceCheckMockHarness.body(token: Self.device), jwt: jwt).status == 200)
        harness.clock.advance(by: 3_601)
        let stale = try await harness.call(.queryTwoBits, DeviceCheckMockHarness.body(token: Self.device), jwt: jwt)
        #expect(stale.status == 401 && text(stale) == Self.refusal)
        try await harness.shutdown()
    }

    @Test func theAuthorizationCheckComesBeforeTheBody() async throws {
        let harness = try await DeviceCheckMockHarness.start()
        let response = try await harness.call(.queryTwoBits, "not json", jwt: try harness.jwt(iss: "OTHERTEAM1"))
        #expect(response.status == 401)
        try await harness.shutdown()
    }
}
