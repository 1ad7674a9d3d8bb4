import HeraldCore
import Synchronization

/// How a PostgreSQL operation is bounded in time: an answer that never comes ends as `StoreUnavailable`.
extension PostgresBackend {
    /// How long one read or write may take once it has its connection. Herald's statements take
    /// milliseconds; this only ends the wait for an answer that will never come. Seen in tests: when
    /// PostgreSQL was stopped while a query was in flight, PostgresNIO (1.33) sometimes never completed
    /// that query, and the fan-out waiting for it, and so the instance's shutdown, hung for ever.
    static let operationTimeout: Duration = .seconds(30)

    /// Runs `operation`, but stops waiting for it after `timeout`: then `onTimeout` runs (it closes the
    /// connection, which fails whatever PostgresNIO still has pending on it) and this throws
    /// `StoreUnavailable`. The operation runs in a task of its own, not a child: a child that never ends
    /// would keep its parent waiting, which is the very hang this guards against. What the abandoned
    /// operation did is decided by PostgreSQL (a transaction whose connection is gone is rolled back).
    static func withDeadline<T: Sendable>(
        _ timeout: Duration, onTimeout: @escaping @Sendable () async -> Void,
        _ operation: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        let outcome = Outcome<T>()
        return try await withCheckedThrowingContinuation { continuation in
            outcome.wait(continuation)
            Task {
                do { outcome.finish(.success(try await operation())) } catch { outcome.finish(.failure(error)) }
            }
            let watchdog = Task {
                guard (try? await Task.sleep(for: timeout)) != nil else { return }
                // Claim the outcome, close the connection, and only then let the caller go on: the
                // caller's return hands the connection back to the pool, which must not get it with a
                // statement still pending on it.
                guard outcome.claim() else { return }
                await onTimeout()
                outcome.deliver(.failure(StoreUnavailable(reason: "no answer from the database within \(timeout)")))
            }
            outcome.onFinish { watchdog.cancel() }
        }
    }

    /// The one result of `withDeadline`: whichever of the operation and the watchdog finishes first.
    final class Outcome<T: Sendable>: Sendable {
        private struct State {
            var continuation: CheckedContinuation<T, any Error>?
            var claimed = false
            var delivered = false
            var onFinish: (@Sendable () -> Void)?
        }
        private let state = Locked(State())

        func wait(_ continuation: CheckedContinuation<T, any Error>) {
            state.withLock { $0.continuation = continuation }
        }

        /// Called once the tasks exist; runs at once if the result is in already.
        func onFinish(_ action: @escaping @Sendable () -> Void) {
            let finished = state.withLock { state -> Bool in
                if state.delivered { return true }
                state.onFinish = action
                return false
            }
            if finished { action() }
        }

        /// Delivers `result` unless the outcome was claimed already; true when this call delivered it.
        @discardableResult
        func finish(_ result: Result<T, any Error>) -> Bool {
            guard claim() else { return false }
            deliver(result)
            return true
        }

        /// Takes the right to deliver the outcome; false when the other side has it.
        func claim() -> Bool {
            state.withLock { state in
                guard !state.claimed else { return false }
                state.claimed = true
                return true
            }
        }

        /// Resumes the caller with `result`; only after a successful `claim()`.
        func deliver(_ result: Result<T, any Error>) {
            let (continuation, action) = state.withLock { state -> (CheckedContinuation<T, any Error>?, (@Sendable () -> Void)?) in
                state.delivered = true
                defer {
                    state.continuation = nil
                    state.onFinish = nil
                }
                return (state.continuation, state.onFinish)
            }
            continuation?.resume(with: result)
            action?()
        }
    }

    /// Who decided first: the connection arriving, or the timeout (one atomic, so exactly one wins).
    final class LeaseState: Sendable {
        static let waiting = 0
        static let leased = 1
        static let timedOut = 2
        private let value = Atomic<Int>(LeaseState.waiting)

        /// Moves from waiting to `outcome`; false when the other side got there first.
        func take(_ outcome: Int) -> Bool {
            value.compareExchange(expected: Self.waiting, desired: outcome, ordering: .acquiringAndReleasing).exchanged
        }

        var isLeased: Bool { value.load(ordering: .acquiring) == Self.leased }
    }
}
