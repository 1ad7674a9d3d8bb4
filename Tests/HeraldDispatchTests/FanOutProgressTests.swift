import HeraldCore
import HeraldStore
import Testing

@testable import HeraldDispatch

/// The fan-out's bookkeeping: what a checkpoint may record, without sockets or a database.
@Suite struct FanOutProgressTests {
    @Test func theCursorOnlyMovesOverARunOfDonePages() {
        var progress = FanOutProgress(messageId: "m")
        let first = progress.addPage(lastKey: 10, count: 2)
        let second = progress.addPage(lastKey: 20, count: 1)
        #expect(progress.takeCheckpoint() == nil, "nothing is done yet")
        progress.record(page: second, .sent, provider: .apns)
        #expect(progress.takeCheckpoint() == nil, "the second page is done but the first is not: no checkpoint")
        progress.record(page: first, .sent, provider: .apns)
        progress.record(page: first, .failed(.service), provider: .fcm)
        let checkpoint = progress.takeCheckpoint()
        #expect(
            checkpoint
                == FanOutCheckpoint(
                    messageId: "m", cursor: 20, sent: 2, failed: 1,
                    byProvider: [.apns: ProviderCounts(sent: 2), .fcm: ProviderCounts(failed: 1)], failures: [.fcm: [.service: 1]],
                    pending: 0))
        #expect(progress.isComplete)
        #expect(progress.takeCheckpoint() == nil)
    }

    @Test func openPagesCountAsPendingAndTheirCountsWaitForThePageToClose() {
        var progress = FanOutProgress(messageId: "m")
        let first = progress.addPage(lastKey: 5, count: 3)
        let second = progress.addPage(lastKey: 9, count: 2)
        progress.record(page: first, .sent, provider: .apns)
        progress.record(page: second, .sent, provider: .apns)
        progress.record(page: second, .sent, provider: .apns)
        let renewal = progress.takeCheckpoint(force: true)
        // Nothing closed: no cursor, no counts; all five recipients are pending (targeted = sent + failed + pending).
        #expect(renewal == FanOutCheckpoint(messageId: "m", cursor: nil, pending: 5))
        #expect(progress.unanswered == 2)
        progress.record(page: first, .sent, provider: .apns)
        progress.record(page: first, .sent, provider: .apns)
        #expect(
            progress.takeCheckpoint()
                == FanOutCheckpoint(messageId: "m", cursor: 9, sent: 5, byProvider: [.apns: ProviderCounts(sent: 5)], pending: 0))
    }

    @Test func tokenHygieneTravelsWithItsPageAndCountsAsFailed() {
        var progress = FanOutProgress(messageId: "m")
        let page = progress.addPage(lastKey: 3, count: 3)
        let removal = TokenRemoval(deviceKey: 1, deviceToken: "aa", invalidSince: Timestamp(milliseconds: 5), provider: .apns)
        let deactivation = TokenDeactivation(deviceKey: 2, deviceToken: "bb", provider: .apns)
        progress.record(page: page, .removed(removal), provider: .apns)
        progress.record(page: page, .deactivated(deactivation), provider: .apns)
        progress.record(page: page, .sent, provider: .apns)
        #expect(
            progress.takeCheckpoint()
                == FanOutCheckpoint(
                    messageId: "m", cursor: 3, sent: 1, failed: 2, byProvider: [.apns: ProviderCounts(sent: 1, failed: 2)],
                    failures: [.apns: [.invalidToken: 2]], pending: 0, remove: [removal], deactivate: [deactivation]))
    }

    @Test func aForcedCheckpointAlwaysRenews() {
        var progress = FanOutProgress(messageId: "m")
        #expect(progress.takeCheckpoint() == nil)
        #expect(progress.takeCheckpoint(force: true) == FanOutCheckpoint(messageId: "m", cursor: nil, pending: 0))
    }
}

/// When a repeating message fires next.
@Suite struct NextOccurrenceTests {
    func message(due: Int64, every: Int64?, until: Int64? = nil) -> StoredMessage {
        StoredMessage(
            id: "m", app: "a", channel: try! ChannelName(validating: "c"), contents: nil,
            schedule: PublishSchedule(
                publishAt: Timestamp(milliseconds: due), repeatEverySeconds: every,
                repeatExpiresAt: until.map(Timestamp.init(milliseconds:))),
            dueAt: Timestamp(milliseconds: due), createdAt: Timestamp(milliseconds: 0))
    }

    @Test func oneOffMessagesHaveNoNextOccurrence() {
        #expect(Dispatcher.nextOccurrence(of: message(due: 1000, every: nil), now: Timestamp(milliseconds: 1000)) == nil)
    }

    @Test func repeatsStepFromTheOccurrenceNotFromNow() {
        let next = Dispatcher.nextOccurrence(of: message(due: 1_000_000, every: 60), now: Timestamp(milliseconds: 1_005_000))
        #expect(next == Timestamp(milliseconds: 1_060_000))
    }

    @Test func occurrencesMissedWhileDownAreSkippedNotReplayed() {
        // Down for ten minutes after the occurrence at 1,000,000: the next is the first one after now.
        let next = Dispatcher.nextOccurrence(of: message(due: 1_000_000, every: 60), now: Timestamp(milliseconds: 1_600_001))
        #expect(next == Timestamp(milliseconds: 1_660_000))
    }

    /// Values no accepted message has (they are bounded at publish) still cannot trap the dispatcher.
    @Test func extremeStoredValuesSaturateInsteadOfTrapping() {
        let far = message(due: .max - 10, every: 31_622_400)
        #expect(Dispatcher.nextOccurrence(of: far, now: Timestamp(milliseconds: 1_000)) == Timestamp(milliseconds: .max))
        let huge = message(due: 1_000, every: .max / 2)
        #expect(Dispatcher.nextOccurrence(of: huge, now: Timestamp(milliseconds: .max - 1)) == Timestamp(milliseconds: .max))
        #expect(Timestamp(milliseconds: .min + 5).adding(milliseconds: -10) == Timestamp(milliseconds: .min))
    }

    @Test func theScheduleEndsAtRepeatExpiresAt() {
        let last = message(due: 1_000_000, every: 60, until: 1_060_000)
        #expect(Dispatcher.nextOccurrence(of: last, now: Timestamp(milliseconds: 1_000_500)) == Timestamp(milliseconds: 1_060_000))
        let over = message(due: 1_060_000, every: 60, until: 1_060_000)
        #expect(Dispatcher.nextOccurrence(of: over, now: Timestamp(milliseconds: 1_060_500)) == nil)
    }
}
