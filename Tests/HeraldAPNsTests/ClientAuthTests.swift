import APNsMock
import Foundation
import HeraldAPNs
import HeraldCore
import Testing

/// Provider tokens as the mock verifies them: signature by key id, team, age.
@Suite struct ClientAuthTests {
    @Test func theMockAcceptsHeraldsTokenAndTheRefreshedOneAfterFiftyMinutes() async throws {
        let clock = ManualClock(Timestamp(milliseconds: 1_800_000_000_000))
        let mock = try await Fixtures.mock(.tls, clock: clock)
        let client = try Fixtures.client(for: mock, connections: 1, clock: clock)
        defer { client.shutdown() }
        #expect(await client.send(Fixtures.notification(1)).isDelivered)
        clock.advance(milliseconds: 49 * 60_000)
        #expect(await client.send(Fixtures.notification(2)).isDelivered)
        // Past 50 minutes the client signs a new token; on the same connection the mock takes it
        // (a change more than 20 minutes after the last is allowed) and the old one would be expired soon.
        clock.advance(milliseconds: 2 * 60_000)
        #expect(await client.send(Fixtures.notification(3)).isDelivered)
        clock.advance(milliseconds: 55 * 60_000)
        #expect(await client.send(Fixtures.notification(4)).isDelivered)
        let stats = mock.stats()
        #expect(stats.accepted == 4)
        #expect(stats.byReason.isEmpty, "\(stats.byReason)")
        try await mock.shutdown()
    }

    @Test func expiredProviderTokenIsResignedAndRetriedOnce() async throws {
        let clientClock = ManualClock(Timestamp(milliseconds: 1_800_000_000_000))
        let mockClock = ManualClock(Timestamp(milliseconds: 1_800_000_000_000))
        let mock = try await Fixtures.mock(.tls, clock: mockClock)
        let client = try Fixtures.client(for: mock, connections: 1, clock: clientClock)
        defer { client.shutdown() }
        #expect(await client.send(Fixtures.notification(1)).isDelivered)
        // The client's cached token is 30 minutes old by its clock but 61 by APNs's: APNs says
        // expired, the client signs a fresh one (30 minutes after the first) and the retry goes through.
        clientClock.advance(milliseconds: 30 * 60_000)
        mockClock.advance(milliseconds: 61 * 60_000)
        #expect(await client.send(Fixtures.notification(2)).isDelivered)
        let stats = mock.stats()
        #expect(stats.byReason["ExpiredProviderToken"] == 1)
        #expect(stats.accepted == 2)
        try await mock.shutdown()
    }

    @Test func aTokenThatStaysExpiredIsReportedNotRetriedForever() async throws {
        let clientClock = ManualClock(Timestamp(milliseconds: 1_800_000_000_000))
        let mockClock = ManualClock(Timestamp(milliseconds: 1_800_000_000_000 + 2 * 3_600_000))
        let mock = try await Fixtures.mock(.cleartext, clock: mockClock)
        let client = try Fixtures.client(for: mock, connections: 1, clock: clientClock)
        defer { client.shutdown() }
        let outcome = await client.send(Fixtures.notification(1))
        #expect(outcome.reason == .known(.expiredProviderToken))
        #expect(mock.stats().byReason["ExpiredProviderToken"] == 2)
        guard case .abort = APNsRetryPolicy().decide(outcome, attempt: 1) else {
            Issue.record("a token still expired after re-signing must abort")
            try await mock.shutdown()
            return
        }
        try await mock.shutdown()
    }

    @Test func aKeyTheServerDoesNotKnowIsInvalidProviderToken() async throws {
        let mock = try await Fixtures.mock(.cleartext)
        let client = try Fixtures.client(for: mock, credentials: .token(Fixtures.signingKey("ROGUEKEY01")))
        defer { client.shutdown() }
        let outcome = await client.send(Fixtures.notification(1))
        #expect(outcome.reason == .known(.invalidProviderToken))
        guard case .abort = APNsRetryPolicy().decide(outcome, attempt: 1) else {
            Issue.record("bad credentials must abort")
            try await mock.shutdown()
            return
        }
        try await mock.shutdown()
    }

    @Test func theRightKeyWithTheWrongTeamIsInvalidProviderToken() async throws {
        let mock = try await Fixtures.mock(.cleartext)
        let client = try Fixtures.client(for: mock, credentials: .token(Fixtures.signingKey(Fixtures.keyID, team: "OTHERTEAM1")))
        defer { client.shutdown() }
        #expect(await client.send(Fixtures.notification(1)).reason == .known(.invalidProviderToken))
        try await mock.shutdown()
    }
}
