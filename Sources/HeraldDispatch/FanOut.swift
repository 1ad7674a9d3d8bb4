import HeraldCore
import HeraldCurl
import HeraldMetrics
import HeraldStore
import Logging
import Synchronization

/// Sends one slice of the current occurrence of one message to its recipients, from the slice's checkpoint on.
///
/// A producer pages recipients by device key and submits each to the provider that serves its `os`
/// (APNs for IOS/OSX, FCM for ANDROID), all through one bounded stream (at most `maxOpenPages` pages not
/// yet checkpointed); a consumer reads the answers as they come (each provider's retry policy has already
/// said what its answer means) and checkpoints whenever the oldest open page is done: one checkpoint for
/// every provider. The producer sleeps on a wake signal between pages, woken by the consumer, the
/// checkpoint writer, a retry's deadline or the stop flag. A heartbeat renews the lease and publishes the
/// pending count. Nothing here throws past the stream: errors are
/// recorded, the stream drains, and `run` reports them at the end, so no send is left without an outcome.
struct FanOut: Sendable {
    /// How a run ended.
    enum Ending: Equatable, Sendable {
        /// Every recipient has a final result and it is checkpointed.
        case completed
        /// Sending cannot work (credentials, settings): the message fails with this reason.
        case aborted(String)
        /// The publisher cancelled the message.
        case cancelled
        /// Another dispatcher owns the message now.
        case leaseLost
        /// Herald is shutting down; the message resumes from its checkpoint on the next start.
        case stopped
    }

    /// One send: the recipient, its page, the provider that serves it, which attempt this is, and when
    /// it was handed to the client.
    struct Send: Sendable {
        let page: Int
        let recipient: Recipient
        let provider: PushProvider
        let attempt: Int
        var submitted = ContinuousClock.now
    }

    struct State {
        var progress: FanOutProgress
        var retries: [(due: ContinuousClock.Instant, send: Send)] = []
        var abort: String?
        var halt: Ending?
        var error: (any Error)?
        /// Checkpoints taken but not yet written (a write failed): written first, in order, by the next
        /// write, so a later cursor never skips their pages' counts.
        var unwritten: [FanOutCheckpoint] = []
        /// The pages each unwritten checkpoint closed. Until its write commits they are still what a
        /// crash would send again, so they count against `maxOpenPages` with the open ones: the bound on
        /// re-sends (`maxOpenPages × pageSize`) holds while a checkpoint is being written too.
        var unwrittenPages: [Int] = []
        /// The sequence number of the next checkpoint taken (see `FanOutCheckpoint.sequence`).
        var nextSequence: Int64
        var lastFailure: String?
    }

    let claimed: ClaimedSlice
    var message: StoredMessage { claimed.message }
    /// The message's sender for each provider it goes through.
    let senders: [PushProvider: any MessageSender]
    /// The systems whose devices it goes to (those a configured provider serves).
    let systems: [DeviceOS]
    /// Sends in flight at most, over every provider.
    let maxInFlight: Int
    let context: DispatchContext
    let logger: Logger

    var registrations: any RegistrationStore { context.registrations }
    var messages: any MessageStore { context.messages }
    var settings: DispatcherSettings { context.settings }
    var metrics: HeraldMetrics { context.metrics }

    func run() async throws -> Ending {
        let state = Shared(
            State(
                progress: FanOutProgress(messageId: message.id, slice: claimed.slice, occurrence: claimed.occurrence),
                nextSequence: claimed.sequence))
        let senders = self.senders
        let stream = SendStream<Send, ProviderAnswer, Void>(maxInFlight: maxInFlight) { send, completion in
            senders[send.provider]!.send(send.recipient, attempt: send.attempt, completion: completion)
        }
        let inFlight = Dictionary(uniqueKeysWithValues: senders.keys.map { ($0, metrics.inFlight(provider: $0.rawValue)) })
        let wake = WakeSignal()
        let observation = context.stop.observe(wake)
        defer { context.stop.forget(observation) }
        // Checkpoint requests: false when a page may have closed, true for a lease renewal. One writer
        // task writes them, so writes never overlap and the consumer never waits for the disk.
        let (requests, request) = AsyncStream.makeStream(of: Bool.self, bufferingPolicy: .bufferingNewest(1))
        await withTaskGroup(of: Void.self) { outer in
            outer.addTask {
                for await force in requests {
                    await checkpoint(state, force: force)
                    wake.signal()
                }
            }
            await withTaskGroup(of: Void.self) { beat in
                beat.addTask { await heartbeat(request) }
                await withTaskGroup(of: Void.self) { inner in
                    inner.addTask {
                        for await delivery in stream.results {
                            let send = delivery.request
                            let answer = delivery.outcome
                            inFlight[send.provider]?.decrement()
                            record(answer, of: send)
                            let (pageClosed, wakeProducer) = state.withLock { state in
                                apply(answer.decision, to: send, reason: answer.reason, &state)
                                return (
                                    state.progress.frontPageDone,
                                    answer.decision.isRetry || state.progress.unanswered == 0 || state.abort != nil
                                )
                            }
                            if pageClosed { request.yield(false) }
                            if wakeProducer { wake.signal() }
                        }
                    }
                    inner.addTask { await produce(state, stream, inFlight, wake) }
                }
                // Only the heartbeat is cancelled; the writer finishes the requests it has.
                beat.cancelAll()
            }
            request.finish()
        }
        // Sends still waiting to retry end as failed, unless Herald is only stopping: then their pages stay
        // open and are sent again after the restart.
        let ending = state.withLock { state -> Ending in
            let ending = state.abort.map(Ending.aborted) ?? state.halt ?? .completed
            if ending != .stopped {
                for retry in state.retries {
                    state.progress.record(
                        page: retry.send.page, .failed, os: retry.send.recipient.os, device: historyDevice(retry.send),
                        reason: "not retried: the message ended")
                }
                state.retries.removeAll()
            }
            return ending
        }
        if ending != .leaseLost { await finalCheckpoint(state) }
        if let error = state.withLock({ $0.error }) { throw StoreFailure(underlying: error) }
        if let failure = state.withLock({ $0.lastFailure }) {
            logger.debug("some sends failed", metadata: ["herald.reason": "\(failure)"])
        }
        return ending
    }

    /// Pages recipients into the stream, and due retries before new pages, until everything has an outcome
    /// or the run halts; then finishes the stream.
    private func produce(
        _ state: Shared, _ stream: SendStream<Send, ProviderAnswer, Void>, _ inFlight: [PushProvider: HeraldMetrics.InFlight],
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
                inFlight[send.provider]?.increment()
                await stream.submit(
                    Send(page: send.page, recipient: send.recipient, provider: send.provider, attempt: send.attempt + 1), tag: ())
            }
            if !exhausted && canOpen {
                let found: KeysetPage<Recipient>
                do {
                    found = try await registrations.recipients(
                        app: message.app,
                        filter: RecipientFilter(
                            channel: message.channel, devices: message.singlecast, systems: systems,
                            upTo: claimed.upTo, segment: message.segment),
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
                    guard let provider = PushProvider.serving(recipient.os), senders[provider] != nil else {
                        // The page query selects only `systems`; a recipient outside them has no sender.
                        state.withLock {
                            $0.progress.record(
                                page: number, .failed, os: recipient.os, device: historyDevice(recipient),
                                reason: "no push provider for \(recipient.os.rawValue)")
                        }
                        continue
                    }
                    inFlight[provider]?.increment()
                    await stream.submit(Send(page: number, recipient: recipient, provider: provider, attempt: 1), tag: ())
                }
            } else if due.isEmpty {
                // Waiting for answers (a page to close) or a retry's time.
                await wake.wait(until: next)
            }
        }
    }

    /// One answer in the metrics: its provider, outcome and reason label, its latency, and what it led to.
    private func record(_ answer: ProviderAnswer, of send: Send) {
        let provider = send.provider.rawValue
        metrics.notification(
            provider: provider, outcome: answer.outcome, reason: answer.reasonLabel, duration: ContinuousClock.now - send.submitted)
        switch answer.decision {
        case .retry: metrics.retried(provider: provider)
        case .removeToken: metrics.tokenRemoved(provider: provider)
        case .deactivateToken: metrics.tokenDeactivated(provider: provider)
        case .done, .abort, .fail: break
        }
    }

    /// The device a send's outcome goes into the delivery history for; nil when the history is off.
    private func historyDevice(_ send: Send) -> String? { historyDevice(send.recipient) }
    private func historyDevice(_ recipient: Recipient) -> String? { settings.recordHistory ? recipient.deviceId : nil }

    /// What one outcome means for the progress and the run; `reason` is the service's, when it gave one.
    private func apply(_ decision: DeliveryDecision, to send: Send, reason: String?, _ state: inout State) {
        let page = send.page
        let recipient = send.recipient
        let device = historyDevice(send)
        let os = recipient.os
        switch decision {
        case .done:
            state.progress.record(page: page, .sent, os: os, device: device)
        case .retry(let after):
            if state.abort != nil || state.halt == .cancelled {
                state.progress.record(page: page, .failed, os: os, device: device, reason: reason ?? "not retried: the message ended")
            } else {
                state.retries.append((ContinuousClock.now.advanced(by: after), send))
            }
        case .removeToken(let since):
            state.progress.record(
                page: page,
                .removed(
                    TokenRemoval(
                        deviceKey: recipient.key, deviceToken: recipient.deviceToken,
                        invalidSince: since.map(Timestamp.init(milliseconds:)),
                        reason: reason, os: os)), os: os, device: device, reason: reason)
        case .deactivateToken:
            state.progress.record(
                page: page,
                .deactivated(TokenDeactivation(deviceKey: recipient.key, deviceToken: recipient.deviceToken, reason: reason, os: os)),
                os: os, device: device, reason: reason)
        case .abort(let failure):
            state.progress.record(page: page, .failed, os: os, device: device, reason: reason ?? failure)
            if state.abort == nil { state.abort = failure }
        case .fail(let failure):
            state.progress.record(page: page, .failed, os: os, device: device, reason: reason ?? failure)
            state.lastFailure = failure
        }
    }

    /// Writes a checkpoint if there is one to write (only the writer task and, after it, `run` call this),
    /// after any earlier ones whose write failed. Each carries its sequence number, so one that reached
    /// the database although its write reported a failure (the answer was lost) is not counted twice.
    private func checkpoint(_ state: Shared, force: Bool) async {
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
    private func finalCheckpoint(_ state: Shared) async {
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
    private func heartbeat(_ request: AsyncStream<Bool>.Continuation) async {
        let interval = Duration.milliseconds(Int64(max(0.05, settings.leaseSeconds / 4) * 1000))
        while !Task.isCancelled {
            do { try await Task.sleep(for: interval) } catch { return }
            request.yield(true)
        }
    }
}

/// A store write failed mid-fan-out; the message resumes from its last checkpoint when the lease expires.
struct StoreFailure: Error, CustomStringConvertible {
    let underlying: any Error
    var description: String { "store write failed: \(underlying)" }
}

extension FanOut {
    /// The run's state, shared by the producer, the consumer and the heartbeat.
    final class Shared: Sendable {
        private let mutex: Locked<State>
        init(_ state: sending State) { mutex = Locked(state) }
        func withLock<T>(_ body: (inout sending State) throws -> sending T) rethrows -> sending T { try mutex.withLock(body) }
    }
}

/// Set once when Herald starts shutting down; every running fan-out checks it between sends, and is
/// woken by it when it waits.
final class StopFlag: Sendable {
    private let flag = Atomic<Bool>(false)
    private let observers = Locked<[ObjectIdentifier: WakeSignal]>([:])

    var isSet: Bool { flag.load(ordering: .acquiring) }

    func set() {
        flag.store(true, ordering: .releasing)
        for wake in observers.withLock({ Array($0.values) }) { wake.signal() }
    }

    /// Signals `wake` when the flag is set; `forget` the returned key when the waiter ends.
    func observe(_ wake: WakeSignal) -> ObjectIdentifier {
        let key = ObjectIdentifier(wake)
        observers.withLock { $0[key] = wake }
        if isSet { wake.signal() }
        return key
    }

    func forget(_ key: ObjectIdentifier) { _ = observers.withLock { $0.removeValue(forKey: key) } }
}

/// What every fan-out of one dispatcher shares: the stores, this instance's lease name, the clock, the
/// settings, the stop flag and the metrics.
struct DispatchContext: Sendable {
    let registrations: any RegistrationStore
    let messages: any MessageStore
    let owner: String
    let clock: any WallClock
    let settings: DispatcherSettings
    let stop: StopFlag
    let metrics: HeraldMetrics
}

extension DeliveryDecision {
    var isRetry: Bool {
        if case .retry = self { return true }
        return false
    }
}
