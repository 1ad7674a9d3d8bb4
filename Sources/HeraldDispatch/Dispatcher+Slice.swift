import HeraldCore
import HeraldMetrics
import HeraldStore
import Logging

/// Running one claimed slice: the fan-out it needs (the providers' senders for the message) and how the
/// slice ends in the store (finished, failed, left to resume), and the schedule's next occurrence.
extension Dispatcher {
    /// Runs one slice of one occurrence and records how it ended.
    func dispatch(_ claimed: ClaimedSlice) async {
        let message = claimed.message
        var logger = self.logger
        logger[metadataKey: "herald.app"] = "\(message.app)"
        logger[metadataKey: "herald.message"] = "\(message.id)"
        logger[metadataKey: "herald.slice"] = "\(claimed.slice)"
        let started = ContinuousClock.now
        metrics.fanOutStarted()
        defer { metrics.fanOutEnded() }
        do {
            let ending = try await fanOut(claimed, logger: logger)
            let now = clock.now
            func finish(next: Timestamp?, failure: String?) async throws {
                let final = try await messages.finishSlice(
                    id: message.id, slice: claimed.slice, occurrence: claimed.occurrence, owner: owner,
                    next: next, failure: failure, now: now)
                if let final { metrics.messageFinished(status: final.contractStatus) }
            }
            switch ending {
            case .completed:
                try await finish(next: Self.nextOccurrence(of: message, now: now), failure: nil)
            case .aborted(let reason):
                logger.error("message failed", metadata: ["herald.reason": "\(reason)"])
                try await finish(next: nil, failure: reason)
            case .cancelled:
                try await finish(next: nil, failure: nil)
            case .leaseLost, .stopped:
                break
            }
            logger.info(
                "message slice ended",
                metadata: [
                    "herald.ending": "\(ending)", "herald.seconds": "\((ContinuousClock.now - started).components.seconds)",
                ])
        } catch {
            // The lease runs out and the message is taken again from its checkpoint.
            logger.error("message fan-out failed; it resumes when its lease expires", metadata: ["herald.error": "\(error)"])
        }
    }

    private func fanOut(_ claimed: ClaimedSlice, logger: Logger) async throws -> FanOut.Ending {
        let message = claimed.message
        guard let contents = message.contents, message.policy.pushes else { return .completed }
        // The providers the message's systems need, and of those the ones the app has settings for: a
        // message to every system of an app with one provider configured goes to that provider's devices, and fails only
        // when none of the providers it needs is configured.
        let needed = PushProvider.allCases.filter { $0.systems.contains(where: message.broadcast.includes) }
        if needed.isEmpty { return .completed }
        let configured = needed.filter { clients.isConfigured($0, for: message.app) }
        if configured.isEmpty { return .aborted(ProviderClients.Unavailable.noCredentials(message.app, needed).description) }
        if let broadcast = message.liveActivity?.broadcast, let apns = contents.apns {
            return try await broadcastOnce(claimed, broadcast, payload: apns.payload, priority: apns.priority ?? 5, logger: logger)
        }
        var senders: [PushProvider: any MessageSender] = [:]
        var maxInFlight = 0
        for provider in configured {
            let client: any PushClient
            do {
                client = try clients.client(for: message.app, provider)
            } catch .shutDown {
                return .stopped
            } catch {
                return .aborted(error.description)
            }
            guard let sender = client.sender(for: contents) else { continue }
            senders[provider] = sender
            maxInFlight += client.maxInFlight
        }
        let systems = senders.keys.flatMap(\.systems).filter(message.broadcast.includes).sorted { $0.rawValue < $1.rawValue }
        if systems.isEmpty { return .completed }
        return try await FanOut(
            claimed: claimed, senders: senders, systems: systems, maxInFlight: maxInFlight, context: context, logger: logger
        ).run()
    }

    /// What this dispatcher's fan-outs share.
    private var context: DispatchContext {
        DispatchContext(
            registrations: registrations, messages: messages, owner: owner, clock: clock, settings: settings, stop: stop,
            metrics: metrics, health: clients.book)
    }

    /// The occurrence after the one that just ran, skipping any that passed while Herald was down
    /// (each occurrence fires once, late rather than in a burst); nil when the schedule is over.
    static func nextOccurrence(of message: StoredMessage, now: Timestamp) -> Timestamp? {
        guard let due = message.dueAt, let every = message.schedule.repeatEverySeconds, every > 0 else { return nil }
        // Saturating arithmetic: the schedule's values are bounded when a message is accepted, but a
        // stored row from before those bounds must not be able to trap the dispatcher.
        let step = Timestamp.milliseconds(seconds: every)
        var next = due.adding(milliseconds: step)
        if next <= now {
            let missed = (now.milliseconds &- next.milliseconds) / step + 1
            let (skip, overflow) = missed.multipliedReportingOverflow(by: step)
            next = next.adding(milliseconds: overflow ? .max : skip)
        }
        if let end = message.schedule.repeatExpiresAt, next > end { return nil }
        return next
    }
}
