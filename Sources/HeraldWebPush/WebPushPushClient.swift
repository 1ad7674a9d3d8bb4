import HeraldCore
import HeraldCurl

/// Web Push behind the provider seam: the app's client (its VAPID key) and how its notifications are
/// retried.
public struct WebPushPushClient: PushClient {
    public let client: WebPushClient
    public let retry: WebPushRetryPolicy

    public init(client: WebPushClient, retry: WebPushRetryPolicy = WebPushRetryPolicy()) {
        self.client = client
        self.retry = retry
    }

    public var provider: PushProvider { .webPush }
    public var maxInFlight: Int { client.configuration.maxInFlight }
    public var connections: ClientConnections { client.counters.clientConnections }

    public func sender(for contents: MessageContents) -> (any MessageSender)? {
        guard let content = contents.webPush else { return nil }
        return WebPushMessageSender(client: client, headers: WebPushClient.Headers(content), policy: retry)
    }

    public func shutdown() { client.shutdown() }
}

/// One message through Web Push: one plaintext, encrypted afresh for each subscription.
struct WebPushMessageSender: MessageSender {
    let client: WebPushClient
    let headers: WebPushClient.Headers
    let policy: WebPushRetryPolicy

    var provider: PushProvider { .webPush }

    func send(_ recipient: Recipient, attempt: Int, completion: @escaping @Sendable (ProviderAnswer) -> Void) {
        let policy = self.policy
        client.send(subscription: recipient.deviceToken, headers: headers) { outcome in
            completion(Self.answer(outcome, decision: policy.decide(outcome, attempt: attempt)))
        }
    }

    /// The outcome in the fan-out's terms: the status as the metric's reason label (a bounded set: the
    /// statuses push services use, `unknown` for the rest).
    static func answer(_ outcome: WebPushOutcome, decision: DeliveryDecision) -> ProviderAnswer {
        switch outcome {
        case .delivered:
            return ProviderAnswer(decision: decision, reason: nil, outcome: .delivered, reasonLabel: nil)
        case .rejected(let response):
            let label = labelledStatuses.contains(response.status) ? String(response.status) : "unknown"
            let reason = response.message.map { "\(response.status) \($0)" } ?? "status \(response.status)"
            return ProviderAnswer(decision: decision, reason: reason, outcome: .rejected, reasonLabel: label, status: response.status)
        case .failed:
            return ProviderAnswer(decision: decision, reason: nil, outcome: .failed, reasonLabel: nil)
        }
    }

    static let labelledStatuses: Set<Int> = [400, 401, 403, 404, 410, 413, 429, 500, 502, 503, 504]
}
