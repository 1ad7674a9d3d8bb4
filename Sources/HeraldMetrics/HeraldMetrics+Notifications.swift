import CoreMetrics
import HeraldCore

/// The per-send metrics of a fan-out: handles made once per provider, so a send finds no label set.
extension HeraldMetrics {
    /// One provider's notification metrics with their handles made once: a fan-out takes one per provider
    /// and reports every send through it, without building a label set or finding a handle per send.
    public func notifications(provider: String) -> ProviderNotifications {
        ProviderNotifications(
            metrics: self, provider: provider,
            delivered: cache.counter(
                Name.notifications, [("provider", provider), ("outcome", NotificationOutcome.delivered.rawValue), ("reason", "none")],
                factory),
            duration: cache.timer(Name.providerDuration, [("provider", provider)], factory),
            inFlight: cache.meter(Name.inFlight, [("provider", provider)], factory),
            sent: cache.counter(Name.deliveries, [("provider", provider), ("result", "sent")], factory),
            failures: Dictionary(
                uniqueKeysWithValues: FailureClass.allCases.map { failure in
                    (failure, cache.counter(Name.deliveries, [("provider", provider), ("result", failure.rawValue)], factory))
                }))
    }

    /// `HeraldMetrics`' per-send reports for one provider (`notifications(provider:)`).
    public struct ProviderNotifications: Sendable {
        let metrics: HeraldMetrics
        let provider: String
        /// The usual answer's series: delivered, no reason.
        let delivered: Counter
        let duration: Timer
        /// Notifications handed to the provider's client and not yet answered.
        let inFlight: Meter
        /// `herald_deliveries_total` by result: `sent`, and each `FailureClass`.
        let sent: Counter
        let failures: [FailureClass: Counter]

        /// A notification handed to the client.
        public func handedOver() { inFlight.increment() }

        /// Its answer (or failure to answer), read: `reason` is the provider's reason name, nil for none.
        public func answered(outcome: NotificationOutcome, reason: String?, duration: Duration) {
            inFlight.decrement()
            if outcome == .delivered && reason == nil {
                delivered.increment()
            } else {
                metrics.notification(provider: provider, outcome: outcome, reason: reason)
            }
            self.duration.recordNanoseconds(duration.nanoseconds)
        }

        /// A send's final result, after any retries: delivered (nil) or not, and why (the delivery
        /// statistics' classes; counted when the result is known, so a page sent again after a crash counts again).
        public func finished(_ failure: FailureClass?) {
            if let failure { failures[failure]?.increment() } else { sent.increment() }
        }

        public func retried() { metrics.retried(provider: provider) }
        public func tokenRemoved() { metrics.tokenRemoved(provider: provider) }
        public func tokenDeactivated() { metrics.tokenDeactivated(provider: provider) }
    }

    /// An answer's count in `herald_notifications_total` (its duration goes with it, in `answered`).
    fileprivate func notification(provider: String, outcome: NotificationOutcome, reason: String?) {
        cache.counter(Name.notifications, [("provider", provider), ("outcome", outcome.rawValue), ("reason", reason ?? "none")], factory)
            .increment()
    }
}
