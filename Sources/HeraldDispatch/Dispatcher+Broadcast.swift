import HeraldCore
import HeraldMetrics
import HeraldStore
import Logging

/// A message whose service fans it out itself (a Live Activity event to an APNs broadcast channel): one
/// request, recorded as the message's one send, instead of a page of recipients.
extension Dispatcher {
    /// Attempts at a broadcast that APNs throttled or did not answer, before the message fails.
    static let broadcastAttempts = 3

    func broadcastOnce(
        _ claimed: ClaimedSlice, _ target: LiveActivityTarget.Broadcast, payload: [UInt8], priority: Int, logger: Logger
    ) async throws -> FanOut.Ending {
        // The broadcast belongs to the first slice; a slice that checkpointed it already (a resumed one) is done.
        guard claimed.slice == 0, claimed.cursor == 0 else { return .completed }
        let message = claimed.message
        let client: any PushClient
        do {
            client = try clients.client(for: message.app, .apns)
        } catch .shutDown {
            return .stopped
        } catch {
            return .aborted(error.description)
        }
        guard let broadcaster = client as? any ChannelBroadcasting else {
            return .aborted("the app's APNs client cannot broadcast")
        }
        let request = ChannelBroadcast(
            channelId: target.channelId, storagePolicy: target.storagePolicy, payload: payload, priority: priority)
        var answer = await broadcaster.broadcast(request)
        var attempt = 1
        while attempt < Self.broadcastAttempts, answer.isWorthRetrying {
            try await Task.sleep(for: .milliseconds(250 * attempt))
            attempt += 1
            answer = await broadcaster.broadcast(request)
        }
        let sent: Int64 = if case .sent = answer { 1 } else { 0 }
        metrics.notifications(provider: PushProvider.apns.rawValue).finished(answer.failures[.apns]?.keys.first)
        let checkpoint = FanOutCheckpoint(
            messageId: message.id, slice: claimed.slice, occurrence: claimed.occurrence, sequence: claimed.sequence,
            cursor: claimed.upTo ?? Int64.max, sent: sent, failed: 1 - sent,
            byProvider: [.apns: ProviderCounts(sent: sent, failed: 1 - sent)], failures: answer.failures, pending: 0)
        guard
            try await messages.checkpoint(
                checkpoint, owner: owner, now: clock.now, leaseMilliseconds: Int64(settings.leaseSeconds * 1000)) != nil
        else { return .leaseLost }
        switch answer {
        case .sent(let uniqueId):
            logger.info("broadcast sent", metadata: ["herald.apns.uniqueId": "\(uniqueId ?? "none")"])
            return .completed
        case .rejected(let reason, _):
            return .aborted("APNs refused the broadcast: \(reason)")
        case .failed(let detail):
            return .aborted("APNs did not take the broadcast after \(attempt) attempts: \(detail)")
        }
    }
}

extension BroadcastAnswer {
    /// The broadcast's failure in the delivery statistics (none when it was sent).
    var failures: [PushProvider: [FailureClass: Int64]] {
        switch self {
        case .sent: [:]
        case .rejected(_, let retryable): [.apns: [retryable ? .service : .other: 1]]
        case .failed: [.apns: [.service: 1]]
        }
    }

    var isWorthRetrying: Bool {
        switch self {
        case .sent: false
        case .rejected(_, let retryable): retryable
        case .failed: true
        }
    }
}
