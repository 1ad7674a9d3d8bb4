import HeraldCore
import HeraldMetrics
import HeraldStore

/// The checkpoint writer (one task: writes never overlap) and the heartbeat that asks it to renew the lease.
extension FanOut {
    /// Writes a checkpoint if there is one to write (only the writer task and, after it, `run` call this),
    /// after any earlier ones whose write failed. Each carries its sequence number, so one that reached
    /// the database although its write reported a failure (the answer was lost) is not counted twice.
    func checkpoint(_ state: SharedRunState, force: Bool) async {
        let pending = state.withLock { state -> [FanOutCheckpoint] in
            let open = state.progress.openPages
            if var taken = state.progress.takeCheckpoint(force: force) {
                taken.sequence = state.nextSequence
                state.nextSequence += 1
                state.unwritten.append(taken)
                state.unwrittenPages.append(open - state.progress.openPages)
            }
            return state.unwritten
        }
        for checkpoint in pending {
            do {
                let start = ContinuousClock.now
                let status = try await messages.checkpoint(
                    checkpoint, owner: context.owner, now: context.clock.now, leaseMilliseconds: Int64(settings.leaseSeconds * 1000))
                metrics.wrote(.checkpoint, count: 1, duration: ContinuousClock.now - start)
                let halted = state.withLock { state -> Bool in
                    state.unwritten.removeFirst()
                    state.unwrittenPages.removeFirst()
                    switch status {
                    case nil: if state.halt == nil { state.halt = .leaseLost }
                    // Cancelled by the publisher, or failed by another slice (credentials): stop sending.
                    case .cancelled?, .failed?: if state.halt == nil { state.halt = .cancelled }
                    default: break
                    }
                    return status == nil
                }
                if halted { return }
            } catch {
                // The run stops sending; this checkpoint and those after it wait for the next write.
                state.withLock { if $0.error == nil { $0.error = error } }
                return
            }
        }
    }

    /// The last checkpoint of a run. When earlier writes failed (the database went away), it is retried
    /// for up to half a lease: once it lands, everything this run sent is counted, and when the lease runs
    /// out the slice resumes after it, so nothing is sent twice. If it never lands, the slice resumes from
    /// the last checkpoint that was written (those pages are sent again, as after a crash).
    func finalCheckpoint(_ state: SharedRunState) async {
        await checkpoint(state, force: true)
        let deadline = ContinuousClock.now + .milliseconds(Int64(settings.leaseSeconds * 500))
        var delay = Duration.milliseconds(100)
        while state.withLock({ !$0.unwritten.isEmpty && $0.halt != .leaseLost }), ContinuousClock.now + delay < deadline, !Task.isCancelled
        {
            try? await Task.sleep(for: delay)
            delay = min(delay * 2, .seconds(1))
            await checkpoint(state, force: true)
        }
    }

    /// Asks for a lease renewal (which also publishes the pending count) a few times per lease period.
    func heartbeat(_ request: AsyncStream<Bool>.Continuation) async {
        let interval = Duration.milliseconds(Int64(max(0.05, settings.leaseSeconds / 4) * 1000))
        while !Task.isCancelled {
            do { try await Task.sleep(for: interval) } catch { return }
            request.yield(true)
        }
    }
}
