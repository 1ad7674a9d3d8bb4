import HeraldCore
import HeraldMetrics
import HeraldStore

/// The consumer's side: what each provider answer means for the run's state, and its metrics.
extension FanOut {
    /// One answer in the metrics (its provider, outcome and reason label, its latency, and what it led to)
    /// and in the provider's health.
    func record(_ answer: ProviderAnswer, of send: Send, through lane: Lane) {
        lane.metrics.answered(outcome: answer.outcome, reason: answer.reasonLabel, duration: ContinuousClock.now - send.submitted)
        switch answer.decision {
        case .retry: lane.metrics.retried()
        case .removeToken: lane.metrics.tokenRemoved()
        case .deactivateToken: lane.metrics.tokenDeactivated()
        case .done, .abort, .fail: break
        }
        lane.health.record(answer, now: context.clock.now)
    }

    /// The device a send's outcome goes into the delivery history for; nil when the history is off.
    func historyDevice(_ send: Send) -> DeliveryRecord.Device? { historyDevice(send.recipient) }
    func historyDevice(_ recipient: Recipient) -> DeliveryRecord.Device? {
        settings.recordHistory ? DeliveryRecord.Device(key: recipient.key, id: recipient.deviceId) : nil
    }

    /// What one outcome means for the progress and the run; `reason` is the service's, when it gave one;
    /// `failure`, what the answer counts as in the delivery statistics if it ends the send undelivered.
    /// Returns whether the send ended (false: it waits to be sent again).
    @discardableResult
    func apply(
        _ decision: DeliveryDecision, to send: Send, reason: String?, failure: FailureClass, _ state: inout RunState
    ) -> Bool {
        let page = send.page
        let recipient = send.recipient
        let device = historyDevice(send)
        let provider = send.provider
        switch decision {
        case .done:
            state.progress.record(page: page, .sent, provider: provider, device: device)
        case .retry(let after):
            if state.abort != nil || state.halt == .cancelled {
                state.progress.record(
                    page: page, .failed(failure), provider: provider, device: device, reason: reason ?? "not retried: the message ended")
            } else {
                state.retries.append((ContinuousClock.now.advanced(by: after), send, failure))
                return false
            }
        case .removeToken(let since):
            let liveActivity = message.liveActivity != nil
            state.progress.record(
                page: page,
                .removed(
                    TokenRemoval(
                        deviceKey: recipient.key, deviceToken: recipient.deviceToken,
                        invalidSince: since.map(Timestamp.init(milliseconds:)),
                        reason: reason, provider: provider, liveActivity: liveActivity)), provider: provider, device: device, reason: reason
            )
        case .deactivateToken where message.liveActivity != nil:
            // A Live Activity token APNs refuses is of no use, but the device's own token may be fine: the
            // Live Activity token goes, the device stays switched on.
            state.progress.record(
                page: page,
                .removed(
                    TokenRemoval(
                        deviceKey: recipient.key, deviceToken: recipient.deviceToken, invalidSince: nil, reason: reason,
                        provider: provider, liveActivity: true)), provider: provider, device: device, reason: reason)
        case .deactivateToken:
            state.progress.record(
                page: page,
                .deactivated(
                    TokenDeactivation(deviceKey: recipient.key, deviceToken: recipient.deviceToken, reason: reason, provider: provider)),
                provider: provider, device: device, reason: reason)
        case .abort(let failure):
            state.progress.record(page: page, .failed(.auth), provider: provider, device: device, reason: reason ?? failure)
            if state.abort == nil { state.abort = failure }
        case .fail(let message):
            state.progress.record(page: page, .failed(failure), provider: provider, device: device, reason: reason ?? message)
            state.lastFailure = message
        }
        return true
    }
}
