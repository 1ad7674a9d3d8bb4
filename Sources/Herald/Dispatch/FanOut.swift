import HeraldAPNs
import HeraldCore
import HeraldCurl
import HeraldMetrics
import HeraldStore
import Logging
import Synchronization

/// Sends one slice of the current occurrence of one message to its recipients, from the slice's checkpoint on.
///
/// A producer pages recipients by device key and submits them to the app's APNs client (at most
/// `maxOpenPages` pages not yet checkpointed); a consumer reads outcomes as they come, asks
/// `APNsRetryPolicy` what each means, and checkpoints whenever the oldest open page is done. A heartbeat
/// renews the lease and publishes the pending count. Nothing here throws past the stream: errors are
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

    /// One send: the recipient, its page, which attempt this is, and when it was handed to the client.
    struct Send: Sendable {
        let page: Int
        let recipient: Recipient
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
        /// The sequence number of the next checkpoint taken (see `FanOutCheckpoint.sequence`).
        var nextSequence: Int64
        var lastFailure: String?
    }

    let claimed: ClaimedSlice
    var message: StoredMessage { claimed.message }
    let content: PushContent
    let systems: [DeviceOS]
    let topic: String
    let client: APNsClient
    let registrations: any RegistrationStore
    let messages: any MessageStore
    let owner: String
    let clock: any WallClock
    let settings: DispatcherSettings
    let stop: StopFlag
    let metrics: HeraldMetrics
    let logger: Logger

    func run() async throws -> Ending {
        let state = Shared(
            State(
                progress: FanOutProgress(messageId: message.id, slice: claimed.slice, occurrence: claimed.occurrence),
                nextSequence: claimed.sequence))
        let stream = client.makeSendStream(of: Send.self)
        let build = NotificationBuilder(content: content, topic: topic)
        let inFlight = metrics.inFlight(provider: "apns")
        // Checkpoint requests: false when a page may have closed, true for a lease renewal. One writer
        // task writes them, so writes never overlap and the consumer never waits for the disk.
        let (requests, request) = AsyncStream.makeStream(of: Bool.self, bufferingPolicy: .bufferingNewest(1))
        await withTaskGroup(of: Void.self) { outer in
            outer.addTask {
                for await force in requests { await checkpoint(state, force: force) }
            }
            await withTaskGroup(of: Void.self) { beat in
                beat.addTask { await heartbeat(request) }
                await withTaskGroup(of: Void.self) { inner in
                    inner.addTask {
                        for await delivery in stream.results {
                            inFlight.decrement()
                            let decision = settings.retry.decide(delivery.outcome, attempt: delivery.tag.attempt)
                            let reason = delivery.outcome.reason?.description
                            record(delivery, decision)
                            let pageClosed = state.withLock { state in
                                apply(decision, to: delivery.tag, reason: reason, &state)
                                return state.progress.frontPageDone
                            }
                            if pageClosed { request.yield(false) }
                        }
                    }
                    inner.addTask { await produce(state, stream, build, inFlight) }
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
                        page: retry.send.page, .failed, device: historyDevice(retry.send), reason: "not retried: the message ended")
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
        _ state: Shared, _ stream: APNsSendStream<Send>, _ build: NotificationBuilder, _ inFlight: HeraldMetrics.InFlight
    ) async {
        var cursor = claimed.cursor
        var exhausted = false
        defer { stream.finish() }
        while true {
            if stop.isSet || Task.isCancelled {
                state.withLock { if $0.halt == nil { $0.halt = Ending.stopped } }
                return
            }
            let now = ContinuousClock.now
            let (due, halted, canOpen, done) = state.withLock { state -> ([Send], Bool, Bool, Bool) in
                if state.abort != nil || state.halt != nil || state.error != nil { return ([], true, false, false) }
                var due: [Send] = []
                state.retries.removeAll { retry in
                    guard retry.due <= now else { return false }
                    due.append(retry.send)
                    return true
                }
                return (
                    due, false, state.progress.openPages < settings.maxOpenPages,
                    exhausted && state.progress.unanswered == 0
                )
            }
            if halted || done { return }
            for send in due {
                inFlight.increment()
                await stream.submit(build(send.recipient), tag: Send(page: send.page, recipient: send.recipient, attempt: send.attempt + 1))
            }
            if !exhausted && canOpen {
                let page: [Recipient]
                do {
                    page = try await registrations.recipients(
                        app: message.app,
                        filter: RecipientFilter(
                            channel: message.channel, devices: message.singlecast, systems: systems,
                            upTo: claimed.upTo, segment: message.segment),
                        after: cursor, limit: settings.pageSize, now: clock.now)
                } catch {
                    state.withLock { $0.error = error }
                    return
                }
                guard let last = page.last else {
                    exhausted = true
                    continue
                }
                cursor = last.key
                let number = state.withLock { $0.progress.addPage(lastKey: last.key, count: page.count) }
                for recipient in page {
                    inFlight.increment()
                    await stream.submit(build(recipient), tag: Send(page: number, recipient: recipient, attempt: 1))
                }
            } else if due.isEmpty {
                // Waiting for outcomes or a retry's time; both are milliseconds away.
                try? await Task.sleep(for: .milliseconds(5))
            }
        }
    }

    /// One answer in the metrics: its outcome and APNs reason (a reason Apple adds later is counted as
    /// `unknown`, so a label never takes an unbounded value), its latency, and what it led to.
    private func record(_ delivery: APNsDelivery<Send>, _ decision: APNsDecision) {
        let outcome: HeraldMetrics.NotificationOutcome
        switch delivery.outcome {
        case .delivered: outcome = .delivered
        case .rejected, .rejectedLocally: outcome = .rejected
        case .failed: outcome = .failed
        }
        let reason = delivery.outcome.reason.map { reason -> String in
            if case .unknown = reason { return "unknown" }
            return reason.name
        }
        metrics.notification(
            provider: "apns", outcome: outcome, reason: reason, duration: ContinuousClock.now - delivery.tag.submitted)
        switch decision {
        case .retry: metrics.retried(provider: "apns")
        case .removeToken: metrics.tokenRemoved(provider: "apns")
        case .deactivateToken: metrics.tokenDeactivated(provider: "apns")
        case .done, .abort, .fail: break
        }
    }

    /// The device a send's outcome goes into the delivery history for; nil when the history is off.
    private func historyDevice(_ send: Send) -> String? { settings.recordHistory ? send.recipient.deviceId : nil }

    /// What one outcome means for the progress and the run; `reason` is APNs's, when it gave one.
    private func apply(_ decision: APNsDecision, to send: Send, reason: String?, _ state: inout State) {
        let page = send.page
        let recipient = send.recipient
        let device = historyDevice(send)
        switch decision {
        case .done:
            state.progress.record(page: page, .sent, device: device)
        case .retry(let after):
            if state.abort != nil || state.halt == .cancelled {
                state.progress.record(page: page, .failed, device: device, reason: reason ?? "not retried: the message ended")
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
                        reason: reason)), device: device, reason: reason)
        case .deactivateToken:
            state.progress.record(
                page: page,
                .deactivated(TokenDeactivation(deviceKey: recipient.key, deviceToken: recipient.deviceToken, reason: reason)),
                device: device, reason: reason)
        case .abort(let failure):
            state.progress.record(page: page, .failed, device: device, reason: reason ?? failure)
            if state.abort == nil { state.abort = failure }
        case .fail(let failure):
            state.progress.record(page: page, .failed, device: device, reason: reason ?? failure)
            state.lastFailure = failure
        }
    }

    /// Writes a checkpoint if there is one to write (only the writer task and, after it, `run` call this),
    /// after any earlier ones whose write failed. Each carries its sequence number, so one that reached
    /// the database although its write reported a failure (the answer was lost) is not counted twice.
    private func checkpoint(_ state: Shared, force: Bool) async {
        let pending = state.withLock { state -> [FanOutCheckpoint] in
            if var taken = state.progress.takeCheckpoint(force: force) {
                taken.sequence = state.nextSequence
                state.nextSequence += 1
                state.unwritten.append(taken)
            }
            return state.unwritten
        }
        for checkpoint in pending {
            do {
                let start = ContinuousClock.now
                let status = try await messages.checkpoint(
                    checkpoint, owner: owner, now: clock.now, leaseMilliseconds: Int64(settings.leaseSeconds * 1000))
                metrics.wrote(.checkpoint, count: 1, duration: ContinuousClock.now - start)
                let halted = state.withLock { state -> Bool in
                    state.unwritten.removeFirst()
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

/// Builds each recipient's notification around the one payload of the message (shared, not copied).
struct NotificationBuilder: Sendable {
    let payload: APNsPayload
    let pushType: APNsPushType
    let priority: APNsPriority?
    let expiration: Int64?
    let collapseID: String?
    let topic: String

    init(content: PushContent, topic: String) {
        payload = APNsPayload(content.payload)
        pushType = APNsPushType(rawValue: content.pushType) ?? .alert
        priority = content.priority.flatMap(APNsPriority.init(rawValue:))
        expiration = content.expiration
        collapseID = content.collapseId
        self.topic = topic
    }

    func callAsFunction(_ recipient: Recipient) -> APNsNotification {
        APNsNotification(
            deviceToken: recipient.deviceToken, payload: payload, pushType: pushType, topic: topic,
            priority: priority, expiration: expiration, collapseID: collapseID)
    }
}

/// Set once when Herald starts shutting down; every running fan-out checks it between sends.
final class StopFlag: Sendable {
    private let flag = Atomic<Bool>(false)
    var isSet: Bool { flag.load(ordering: .acquiring) }
    func set() { flag.store(true, ordering: .releasing) }
}
