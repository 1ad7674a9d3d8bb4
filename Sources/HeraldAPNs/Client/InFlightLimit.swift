import Synchronization

/// An async counting semaphore: at most `limit` holders at once, waiters resumed in order.
final class InFlightLimit: Sendable {
    private struct State {
        var available: Int
        var waiters: [CheckedContinuation<Void, Never>] = []
        var firstWaiter = 0
    }

    private let state: Mutex<State>

    init(_ limit: Int) { state = Mutex(State(available: max(1, limit))) }

    func acquire() async {
        let acquired = state.withLock { state -> Bool in
            guard state.available > 0 else { return false }
            state.available -= 1
            return true
        }
        if acquired { return }
        await withCheckedContinuation { continuation in
            let now = state.withLock { state -> Bool in
                if state.available > 0 {
                    state.available -= 1
                    return true
                }
                state.waiters.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }

    func release() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard state.firstWaiter < state.waiters.count else {
                state.available += 1
                return nil
            }
            let waiter = state.waiters[state.firstWaiter]
            state.firstWaiter += 1
            if state.firstWaiter == state.waiters.count {
                state.waiters.removeAll(keepingCapacity: true)
                state.firstWaiter = 0
            }
            return waiter
        }
        waiter?.resume()
    }
}
