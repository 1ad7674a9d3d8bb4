import DequeModule

/// An async counting semaphore: at most `limit` holders at once, waiters resumed in order.
/// `open()` lifts the limit for good (the reader went away, so nobody would release).
///
/// A full window wakes its waiter only once `wakeBatch` slots are free, not at every release:
/// the submitter then sends a burst that reaches the curl thread with one wakeup, instead of
/// one task switch and one wakeup per notification.
public final class InFlightLimit: Sendable {
    private struct State {
        var available: Int
        var isOpen = false
        var waiters = Deque<CheckedContinuation<Void, Never>>()
    }

    private let state: Locked<State>
    private let wakeBatch: Int

    public init(_ limit: Int) {
        let limit = max(1, limit)
        state = Locked(State(available: limit))
        wakeBatch = max(1, min(64, limit / 8))
    }

    public func acquire() async {
        let acquired = state.withLock { state -> Bool in
            guard !state.isOpen else { return true }
            guard state.available > 0 else { return false }
            state.available -= 1
            return true
        }
        if acquired { return }
        await withCheckedContinuation { continuation in
            let now = state.withLock { state -> Bool in
                if state.isOpen { return true }
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

    public func release() {
        let woken = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.available += 1
            // Every held slot is released eventually, so `available` does reach `wakeBatch`;
            // then as many waiters go on as there are free slots.
            guard !state.waiters.isEmpty, state.available >= wakeBatch else { return [] }
            let count = min(state.waiters.count, state.available)
            state.available -= count
            let woken = Array(state.waiters.prefix(count))
            state.waiters.removeFirst(count)
            return woken
        }
        for waiter in woken { waiter.resume() }
    }

    /// No limit any more: every waiter goes on, and so will every later `acquire`.
    public func open() {
        let waiters = state.withLock { state -> Deque<CheckedContinuation<Void, Never>> in
            state.isOpen = true
            defer { state.waiters.removeAll() }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }
}
