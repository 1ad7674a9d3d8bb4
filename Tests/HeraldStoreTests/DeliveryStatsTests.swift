import HeraldCore
import HeraldStore
import SQLKit
import Testing

/// The delivery statistics: written with each checkpoint, once; read per minute and hour; rolled up.
@Suite struct DeliveryStatsTests {
    let t0 = Fixture.t0

    func claim(_ messages: SQLMessageStore, owner: String = "a", now: Timestamp) async throws -> ClaimedSlice {
        try #require(
            try await messages.claim(
                owner: owner, now: now, leaseMilliseconds: 10_000, limit: 1, slicing: Slicing(), running: [], foldingAbandoned: true
            ).first)
    }

    @Test(arguments: StoreBackendKind.allCases)
    func checkpointsAddToTheirMinuteOnceEvenWhenWrittenAgain(_ kind: StoreBackendKind) async throws {
        try await kind.withStore { _, backend in
            let messages = SQLMessageStore(backend: backend, clock: .caller)
            try await messages.insert(try MessageSliceTests().message(), now: t0)
            let claimed = try await claim(messages, now: t0)
            let first = FanOutCheckpoint(
                messageId: "message:1", sequence: claimed.sequence, cursor: 10, sent: 7, failed: 3,
                byProvider: [.apns: ProviderCounts(sent: 5, failed: 2), .fcm: ProviderCounts(sent: 2, failed: 1)],
                failures: [.apns: [.throttled: 1, .service: 1]], pending: 0)
            #expect(try await messages.checkpoint(first, owner: "a", now: t0, leaseMilliseconds: 10_000) == .running)
            // Its answer was lost: written again, recognised, not counted again.
            #expect(try await messages.checkpoint(first, owner: "a", now: t0, leaseMilliseconds: 10_000) == .running)
            // The next one lands in the next minute.
            let later = t0.adding(milliseconds: 61_000)
            let second = FanOutCheckpoint(
                messageId: "message:1", sequence: 1, cursor: 20, sent: 4, byProvider: [.apns: ProviderCounts(sent: 4)], pending: 0)
            #expect(try await messages.checkpoint(second, owner: "a", now: later, leaseMilliseconds: 10_000) == .running)

            let minute = StatsStep.minute.bucket(t0)
            let points = try await messages.deliveryStats(
                app: "shop", from: t0.adding(milliseconds: -3_600_000), to: later.adding(milliseconds: 1), step: .minute)
            #expect(
                points == [
                    DeliveryStatsPoint(at: minute, provider: .apns, tally: DeliveryTally(sent: 5, failed: [.throttled: 1, .service: 1])),
                    // A failure the checkpoint gave no class counts as `other`.
                    DeliveryStatsPoint(at: minute, provider: .fcm, tally: DeliveryTally(sent: 2, failed: [.other: 1])),
                    DeliveryStatsPoint(at: minute.adding(milliseconds: 60_000), provider: .apns, tally: DeliveryTally(sent: 4)),
                ])
            // Another app sees none of it; an hour's bucket holds both minutes.
            #expect(try await messages.deliveryStats(app: "other", from: t0, to: later, step: .minute).isEmpty)
            let hours = try await messages.deliveryStats(app: "shop", from: t0, to: later.adding(milliseconds: 1), step: .hour)
            #expect(hours.first { $0.provider == .apns }?.tally == DeliveryTally(sent: 9, failed: [.throttled: 1, .service: 1]))
            // The message's seconds: 10 then 4 notifications.
            let seconds = try await messages.sendsPerSecond(app: "shop", messageId: "message:1")
            #expect(seconds.map(\.sent) == [7, 4] && seconds.map(\.failed) == [3, 0])
            #expect(try await messages.sendsPerSecond(app: "other", messageId: "message:1").isEmpty, "another app's message")
        }
    }

    @Test(arguments: StoreBackendKind.allCases)
    func removedTokensCountWhereTheyWereRemoved(_ kind: StoreBackendKind) async throws {
        try await kind.withStore { store, backend in
            let messages = SQLMessageStore(backend: backend, clock: .caller)
            try await MessageSliceTests().register(store, 2)
            try await messages.insert(try MessageSliceTests().message(), now: t0)
            let claimed = try await claim(messages, now: t0)
            let gone = try #require(
                try await store.recipients(
                    app: "shop", filter: RecipientFilter(channel: try Fixture.channel("news"), devices: nil, systems: [.ios], upTo: nil),
                    after: 0, limit: 10, now: t0
                ).items.first)
            let checkpoint = FanOutCheckpoint(
                messageId: "message:1", sequence: claimed.sequence, cursor: nil, sent: 1, failed: 1,
                byProvider: [.apns: ProviderCounts(sent: 1, failed: 1)], failures: [.apns: [.invalidToken: 1]], pending: 0,
                remove: [
                    TokenRemoval(
                        deviceKey: gone.key, deviceToken: gone.deviceToken, invalidSince: nil, reason: "Unregistered", provider: .apns)
                ])
            #expect(try await messages.checkpoint(checkpoint, owner: "a", now: t0, leaseMilliseconds: 10_000) == .running)
            let points = try await messages.deliveryStats(app: "shop", from: t0, to: t0.adding(milliseconds: 60_000), step: .minute)
            #expect(points.map(\.tally) == [DeliveryTally(sent: 1, failed: [.invalidToken: 1], tokensRemoved: 1)])
        }
    }

    @Test(arguments: StoreBackendKind.allCases)
    func theRollUpFoldsOldMinutesIntoHoursAndKeepsEveryCount(_ kind: StoreBackendKind) async throws {
        try await kind.withStore { _, backend in
            let messages = SQLMessageStore(backend: backend, clock: .caller)
            // Three hours of checkpoints, one every 20 minutes, through two messages (two shards' worth).
            let start = StatsStep.hour.bucket(t0)
            var expected: [Timestamp: Int64] = [:]
            for (index, id) in ["message:a", "message:b"].enumerated() {
                try await messages.insert(try MessageSliceTests().message(id), now: start)
                let claimed = try await claim(messages, owner: "o\(index)", now: start)
                for step in 0..<9 {
                    let at = start.adding(milliseconds: Int64(step) * 1_200_000 + 1_000)
                    let sent = Int64(step + 1 + index * 100)
                    let checkpoint = FanOutCheckpoint(
                        messageId: id, slice: claimed.slice, sequence: claimed.sequence + Int64(step), cursor: nil, sent: sent,
                        failed: 1, byProvider: [.apns: ProviderCounts(sent: sent, failed: 1)], failures: [.apns: [.auth: 1]], pending: 1)
                    #expect(try await messages.checkpoint(checkpoint, owner: "o\(index)", now: at, leaseMilliseconds: 10_000_000) != nil)
                    expected[StatsStep.hour.bucket(at), default: 0] += sent
                }
            }
            let window = (from: start, to: start.adding(milliseconds: 3 * 3_600_000))
            let before = try await messages.deliveryStats(app: "shop", from: window.from, to: window.to, step: .hour)
            #expect(Dictionary(uniqueKeysWithValues: before.map { ($0.at, $0.tally.sent) }) == expected)
            // Minutes before the third hour go into their hours; the third hour's stay minutes.
            let rolled = try await messages.rollUpDeliveryStats(
                minutesBefore: start.adding(milliseconds: 2 * 3_600_000 + 30 * 60_000), hoursBefore: Timestamp(milliseconds: 0))
            #expect(rolled == StatsRollUp(minutesRolledUp: 6, hoursPruned: 0))
            let after = try await messages.deliveryStats(app: "shop", from: window.from, to: window.to, step: .hour)
            #expect(after == before, "the same series after the roll-up")
            #expect(after.allSatisfy { $0.tally.failed == [.auth: 6] })
            let minutes = try await messages.deliveryStats(app: "shop", from: window.from, to: window.to, step: .minute)
            #expect(Set(minutes.map { StatsStep.hour.bucket($0.at) }) == [start.adding(milliseconds: 2 * 3_600_000)])
            // Rolling up again changes nothing; hours past their retention go.
            #expect(
                try await messages.rollUpDeliveryStats(
                    minutesBefore: start.adding(milliseconds: 2 * 3_600_000), hoursBefore: start.adding(milliseconds: 3_600_000))
                    == StatsRollUp(minutesRolledUp: 0, hoursPruned: 1))
            let kept = try await messages.deliveryStats(app: "shop", from: window.from, to: window.to, step: .hour)
            #expect(kept.map(\.at) == [start.adding(milliseconds: 3_600_000), start.adding(milliseconds: 2 * 3_600_000)])
        }
    }

    @Test func bucketsAreAlignedAndRoundDown() {
        let time = Timestamp(milliseconds: 1_700_000_123_456)
        #expect(StatsStep.minute.bucket(time).milliseconds == 1_700_000_100_000)
        #expect(StatsStep.hour.bucket(time).milliseconds == 1_699_999_200_000)
        #expect(StatsStep.minute.bucket(Timestamp(milliseconds: -1)).milliseconds == -60_000)
    }
}
