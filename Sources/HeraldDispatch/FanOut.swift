import HeraldCore
import HeraldMetrics
import HeraldStore
import Logging

/// Sends one slice of the current occurrence of one message to its recipients, from the slice's checkpoint on.
///
/// A producer pages recipients by device key and submits each to the provider that serves its `os`
/// (`PushProvider.serving`), all through one bounded stream (at most `maxOpenPages` pages not
/// yet checkpointed); a consumer reads the answers as they come (each provider's retry policy has already
/// said what its answer means) and checkpoints whenever the oldest open page is done: one checkpoint for
/// every provider. The producer sleeps on a wake signal between pages, woken by the consumer, the
/// checkpoint writer, a retry's deadline or the stop flag. A heartbeat renews the lease and publishes the
/// pending count. Nothing here throws past the stream: errors are
/// recorded, the stream drains, and `run` reports them at the end, so no send is left without an outcome.
///
/// `run` (here) sets the loops up; each is a file of its own: the producer (`FanOut+Producer`), the
/// consumer's reading of an answer (`FanOut+Outcomes`), and the checkpoint writer with the heartbeat
/// (`FanOut+Checkpoints`). What they share is `RunState`, behind `SharedRunState`'s lock (`FanOutRunState`).
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
        /// Its provider's place in the run's `lanes`.
        let lane: Int
        let attempt: Int
        var submitted = ContinuousClock.now
    }

    /// One provider a run sends through: its sender, and the metrics and health entry its answers go to,
    /// found once per run rather than once per send.
    struct Lane: Sendable {
        let provider: PushProvider
        let sender: any MessageSender
        let metrics: HeraldMetrics.ProviderNotifications
        let health: ProviderHealthBook.Entry
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
    var settings: DispatcherConfiguration { context.settings }
    var metrics: HeraldMetrics { context.metrics }

    func run() async throws -> Ending {
        let state = SharedRunState(
            RunState(
                progress: FanOutProgress(messageId: message.id, slice: claimed.slice, occurrence: claimed.occurrence),
                nextSequence: claimed.sequence))
        let lanes = senders.sorted { $0.key.rawValue < $1.key.rawValue }.map { provider, sender in
            Lane(
                provider: provider, sender: sender, metrics: metrics.notifications(provider: provider.rawValue),
                health: context.health.entry(app: message.app, provider: provider))
        }
        let stream = SendStream<Send, ProviderAnswer, Void>(maxInFlight: maxInFlight) { send, completion in
            lanes[send.lane].sender.send(send.recipient, attempt: send.attempt, completion: completion)
        }
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
                            record(answer, of: send, through: lanes[send.lane])
                            let (pageClosed, wakeProducer, ended) = state.withLock { state in
                                let ended = apply(answer.decision, to: send, reason: answer.reason, failure: answer.failureClass, &state)
                                return (
                                    state.progress.frontPageDone,
                                    answer.decision.isRetry || state.progress.unanswered == 0 || state.abort != nil,
                                    ended
                                )
                            }
                            if ended { lanes[send.lane].metrics.finished(answer.decision == .done ? nil : answer.failureClass) }
                            if pageClosed { request.yield(false) }
                            if wakeProducer { wake.signal() }
                        }
                    }
                    inner.addTask { await produce(state, stream, lanes, wake) }
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
                        page: retry.send.page, .failed(retry.failure), provider: retry.send.provider, device: historyDevice(retry.send),
                        reason: "not retried: the message ended")
                    lanes[retry.send.lane].metrics.finished(retry.failure)
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
}

extension DeliveryDecision {
    var isRetry: Bool {
        if case .retry = self { return true }
        return false
    }
}
