import HeraldCore
import HeraldCurl

/// FCM behind the provider seam: the app's client (its service account's project) and how its
/// notifications are retried.
public struct FCMPushClient: PushClient {
    public let client: FCMClient
    public let retry: FCMRetryPolicy

    public init(client: FCMClient, retry: FCMRetryPolicy = FCMRetryPolicy()) {
        self.client = client
        self.retry = retry
    }

    public var provider: PushProvider { .fcm }
    public var maxInFlight: Int { client.configuration.maxInFlight }
    public var connections: ClientConnections { client.counters.clientConnections }

    public func sender(for contents: MessageContents) -> (any MessageSender)? {
        guard let content = contents.fcm else { return nil }
        return FCMMessageSender(client: client, content: content, policy: retry)
    }

    public func shutdown() { client.shutdown() }
}

/// One message through FCM: each device's request body is the message's one template around its token.
struct FCMMessageSender: MessageSender {
    let client: FCMClient
    let content: FCMContent
    let policy: FCMRetryPolicy

    var provider: PushProvider { .fcm }

    func send(_ recipient: Recipient, attempt: Int, completion: @escaping @Sendable (ProviderAnswer) -> Void) {
        let policy = self.policy
        let body = CurlBody(content.requestBody(token: recipient.deviceToken))
        client.send(token: recipient.deviceToken, body: body) { outcome in
            completion(Self.answer(outcome, decision: policy.decide(outcome, attempt: attempt)))
        }
    }

    /// The outcome and FCM error code in the fan-out's terms (a code Google adds later is labelled
    /// `unknown`, so a metric label never takes an unbounded value).
    static func answer(_ outcome: FCMOutcome, decision: DeliveryDecision) -> ProviderAnswer {
        switch outcome {
        case .delivered:
            return ProviderAnswer(decision: decision, reason: nil, outcome: .delivered, reasonLabel: nil)
        case .rejected(let response):
            let code = response.errorCode
            let label = code.map { code -> String in
                if case .unknown = code { return "unknown" }
                return code.name
            }
            return ProviderAnswer(
                decision: decision, reason: code?.name ?? "status \(response.status)", outcome: .rejected, reasonLabel: label,
                status: response.status)
        case .failed:
            return ProviderAnswer(decision: decision, reason: nil, outcome: .failed, reasonLabel: nil)
        }
    }
}
