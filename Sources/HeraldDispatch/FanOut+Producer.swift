import HeraldCore
import HeraldMetrics
import HeraldStore

/// The producer: pages recipients by key and submits each to the stream, due retries first.
extension FanOut {
    /// Pages recipients into the stream, and due retries before new pages, until everything has an outcome
    /// or the run halts; then finishes the stream.
    func produce(
        _ state: SharedRunState, _ stream: SendStream<Send, ProviderAnswer, Void>, _ lanes: [Lane],
        _ wake: WakeSignal
    ) async {
        var cursor = claimed.cursor
        var exhausted = false
        defer { stream.finish() }
        while true {
            if context.stop.isSet || Task.isCancelled {
                state.withLock { if $0.halt == nil { $0.halt = Ending.stopped } }
                return
            }
            let now = ContinuousClock.now
            let (due, next, halted, canOpen, done) = state.withLock {
                state -> ([Send], ContinuousClock.Instant?, Bool, Bool, Bool) in
                if state.abort != nil || state.halt != nil || state.error != nil { return ([], nil, true, false, false) }
                var due: [Send] = []
                var next: ContinuousClock.Instant?
                state.retries.removeAll { retry in
                    guard retry.due <= now else {
                        next = min(next ?? retry.due, retry.due)
                        return false
                    }
                    due.append(retry.send)
                    return true
                }
                return (
                    due, next, false, state.progress.openPages + state.unwrittenPages.reduce(0, +) < settings.maxOpenPages,
                    exhausted && state.progress.unanswered == 0
                )
            }
            if halted || done { return }
            for send in due {
                lanes[send.lane].metrics.handedOver()
                await stream.submit(
                    Send(page: send.page, recipient: send.recipient, provider: send.provider, lane: send.lane, attempt: send.attempt + 1),
                    tag: ())
            }
            if !exhausted && canOpen {
                let found: KeysetPage<Recipient>
                do {
                    found = try await registrations.recipients(
                        app: message.app,
                        filter: RecipientFilter(
                            channel: message.channel, devices: message.singlecast, systems: systems,
                            upTo: claimed.upTo, segment: message.segment, audience: message.audience,
                            liveActivity: message.liveActivity),
                        after: cursor, limit: settings.pageSize, now: context.clock.now)
                } catch {
                    state.withLock { $0.error = error }
                    return
                }
                let page = found.items
                if found.next == nil { exhausted = true }
                guard let last = page.last else {
                    // Candidates that all failed the device's conditions: nothing to send, go on after them.
                    if let next = found.next { cursor = next }
                    continue
                }
                // The page ends at the last key it looked at: a candidate after the last recipient was skipped.
                let lastKey = found.next ?? last.key
                cursor = lastKey
                let number = state.withLock { $0.progress.addPage(lastKey: lastKey, count: page.count) }
                for recipient in page {
                    guard let provider = PushProvider.serving(recipient.os), let lane = lanes.firstIndex(where: { $0.provider == provider })
                    else {
                        // The page query selects only `systems`; a recipient outside them has no sender.
                        state.withLock {
                            $0.progress.record(
                                page: number, .failed(.other), provider: nil, device: historyDevice(recipient),
                                reason: "no push provider for \(recipient.os.rawValue)")
                        }
                        continue
                    }
                    lanes[lane].metrics.handedOver()
                    await stream.submit(Send(page: number, recipient: recipient, provider: provider, lane: lane, attempt: 1), tag: ())
                }
            } else if due.isEmpty {
                // Waiting for answers (a page to close) or a retry's time.
                await wake.wait(until: next)
            }
        }
    }
}
