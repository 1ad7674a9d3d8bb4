import Synchronization
import Testing

@testable import HeraldStore

/// The wait for a database answer that never comes ends, and an answer that does come is not lost.
@Suite struct DeadlineTests {
    @Test func anAnswerInTimeIsReturned() async throws {
        let value = try await PostgresBackend.withDeadline(.seconds(5), onTimeout: {}) { 42 }
        #expect(value == 42)
    }

    @Test func anOperationThatNeverAnswersEndsTheWaitAndRunsTheTimeoutAction() async throws {
        let timedOut = Atomic<Bool>(false)
        let hang = AsyncStream<Void>.makeStream()
        let started = ContinuousClock.now
        await #expect(throws: StoreUnavailable.self) {
            try await PostgresBackend.withDeadline(.milliseconds(100), onTimeout: { timedOut.store(true, ordering: .relaxed) }) {
                // Like a query whose completion is never delivered: it ignores cancellation and never ends by itself.
                for await _ in hang.stream {}
                return 1
            }
        }
        #expect(ContinuousClock.now - started < .seconds(5))
        let ranTimeoutAction = timedOut.load(ordering: .relaxed)
        #expect(ranTimeoutAction)
        hang.continuation.finish()
    }

    @Test func anErrorInTimeIsThrownAsItIs() async throws {
        struct Refused: Error {}
        await #expect(throws: Refused.self) {
            try await PostgresBackend.withDeadline(.seconds(5), onTimeout: {}) { () async throws -> Int in throw Refused() }
        }
    }
}
