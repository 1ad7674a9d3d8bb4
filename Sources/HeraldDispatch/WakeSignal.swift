import HeraldCore

/// Wakes one waiting task: the fan-out's producer sleeps on it until an answer frees room, a retry
/// falls due, or the run must stop, instead of polling shared state. A signal that comes while nobody
/// waits is kept (once), so none is lost between a check and the wait that follows it.
final class WakeSignal: Sendable {
    private struct State {
        var pending = false
        var waiter: CheckedContinuation<Void, Never>?
    }

    private let state = Locked(State())

    /// Wakes the waiter, or the next wait if nobody waits now.
    func signal() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            if let waiter = state.waiter {
                state.waiter = nil
                return waiter
            }
            state.pending = true
            return nil
        }
        waiter?.resume()
    }

    /// Returns at the next signal, at `deadline` if one is given, or when the task is cancelled.
    /// Only one task waits at a time.
    func wait(until deadline: ContinuousClock.Instant?) async {
        await withTaskGroup(of: Void.self) { group in
            if let deadline {
                group.addTask { [self] in
                    try? await Task.sleep(until: deadline, clock: .continuous)
                    if !Task.isCancelled { signal() }
                }
            }
            await withTaskCancellationHandler {
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    let ready = state.withLock { state -> Bool in
                        if state.pending {
                            state.pending = false
                            return true
                        }
                        state.waiter = continuation
                        return false
                    }
                    if ready { continuation.resume() }
                }
            } onCancel: {
                signal()
            }
            group.cancelAll()
        }
        // A timer that fired after the signal leaves a stale wake-up: the caller re-checks its state
        // anyway, so at worst one extra look.
    }
}
