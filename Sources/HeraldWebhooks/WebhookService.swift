import Foundation
import HeraldCore
import HeraldStore
import Logging
import ServiceLifecycle

/// Delivers the outbox's events to each app's webhook: claims due events, posts each (signed), and
/// deletes it when the receiver answers 2xx or puts it back with a growing delay when it does not. Runs
/// until shutdown; an event in flight then is posted again by whichever instance claims it next, so a
/// receiver sees each event at least once and may see it twice (its `id` tells).
public struct WebhookService: Service {
    let outbox: any WebhookOutboxStore
    let targets: [String: WebhookTarget]
    let sender: WebhookSender
    let clock: any WallClock
    let policy: WebhookRetryPolicy
    let pollInterval: Duration
    let logger: Logger
    /// Events claimed per pass, and posted at the same time.
    let batchSize: Int
    let owner = "\(ProcessInfo.processInfo.hostName)/\(ProcessInfo.processInfo.processIdentifier)/webhooks/\(UUID().uuidString.prefix(8))"

    public init(
        outbox: any WebhookOutboxStore, targets: [String: WebhookTarget], clock: any WallClock,
        policy: WebhookRetryPolicy = WebhookRetryPolicy(), pollInterval: Duration = .milliseconds(250), batchSize: Int = 16,
        logger: Logger
    ) {
        self.outbox = outbox
        self.targets = targets
        self.sender = WebhookSender()
        self.clock = clock
        self.policy = policy
        self.pollInterval = pollInterval
        self.batchSize = max(1, batchSize)
        self.logger = logger
    }

    public func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                let delivered: Int
                do {
                    delivered = try await pass()
                } catch is CancellationError {
                    return
                } catch {
                    logger.error("webhook outbox could not be read", metadata: ["herald.error": "\(error)"])
                    delivered = 0
                }
                if delivered == 0 { try? await Task.sleep(for: pollInterval) }
            }
        }
    }

    /// One claim and its posts; returns how many events it handled.
    func pass() async throws -> Int {
        // The lease outlasts a post's timeout, so no other instance takes an event while it is posted.
        let longest = targets.values.map(\.timeoutMilliseconds).max() ?? 10_000
        let events = try await outbox.claimEvents(
            owner: owner, now: clock.now, leaseMilliseconds: Int64(longest) * 2 + 5_000, limit: batchSize)
        guard !events.isEmpty else { return 0 }
        await withTaskGroup(of: Void.self) { group in
            for event in events { group.addTask { await deliver(event) } }
        }
        return events.count
    }

    func deliver(_ event: OutboxEvent) async {
        let metadata: Logger.Metadata = [
            "herald.app": "\(event.app)", "herald.event": "\(event.eventId)", "herald.eventType": "\(event.type)",
        ]
        let outcome: WebhookSender.Result
        if let target = targets[event.app] {
            let body = Array(event.payload.utf8)
            let signature = WebhookSignature.header(secret: target.secret, timestamp: clock.now.milliseconds, body: body)
            outcome = await sender.post(
                body,
                headers: [
                    "\(WebhookSignature.headerName): \(signature)", "Herald-Event: \(event.type)", "Herald-Event-Id: \(event.eventId)",
                ], to: target)
        } else {
            // The app's webhook was removed from the configuration: keep the event for when it returns.
            outcome = .failed("the app has no webhook configured")
        }
        do {
            if outcome.acknowledged {
                try await outbox.acknowledge(event.key, owner: owner)
                logger.debug("webhook event delivered", metadata: metadata)
                return
            }
            let attempt = event.attempts + 1
            var retryAfter: Int64?
            let reason: String
            switch outcome {
            case .answered(let status, let after):
                retryAfter = after
                reason = "HTTP \(status)"
            case .failed(let text): reason = text
            }
            let delay = policy.delay(afterAttempt: attempt, retryAfterSeconds: retryAfter)
            try await outbox.retry(event.key, owner: owner, now: clock.now, delayMilliseconds: delay, error: reason)
            logger.log(
                level: attempt >= 5 ? .warning : .info, "webhook event not acknowledged",
                metadata: metadata.merging(
                    ["herald.attempt": "\(attempt)", "herald.reason": "\(reason)", "herald.retryInMs": "\(delay)"]) { $1 })
        } catch {
            // The lease runs out and the event is claimed again.
            logger.error("webhook outbox could not be updated", metadata: metadata.merging(["herald.error": "\(error)"]) { $1 })
        }
    }
}
