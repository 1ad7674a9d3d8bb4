import HeraldCore
import HeraldCurl

/// APNs behind the provider seam: the app's client, its topic, and how its notifications are retried.
public struct APNsPushClient: PushClient {
    public let client: APNsClient
    /// The app's bundle id (`apns-topic`).
    public let topic: String
    public let retry: APNsRetryPolicy

    public init(client: APNsClient, topic: String, retry: APNsRetryPolicy = APNsRetryPolicy()) {
        self.client = client
        self.topic = topic
        self.retry = retry
    }

    public var provider: PushProvider { .apns }
    public var maxInFlight: Int { client.configuration.maxInFlight }
    public var connections: ClientConnections { client.counters.clientConnections }

    public func sender(for contents: MessageContents) -> (any MessageSender)? {
        guard let content = contents.apns else { return nil }
        return APNsMessageSender(client: client, build: NotificationBuilder(content: content, topic: topic), policy: retry)
    }

    public func shutdown() { client.shutdown() }
}

/// One message through APNs: each recipient's notification around the message's one payload.
struct APNsMessageSender: MessageSender {
    let client: APNsClient
    let build: NotificationBuilder
    let policy: APNsRetryPolicy

    var provider: PushProvider { .apns }

    func send(_ recipient: Recipient, attempt: Int, completion: @escaping @Sendable (ProviderAnswer) -> Void) {
        let policy = self.policy
        client.send(build(recipient)) { outcome in
            completion(Self.answer(outcome, decision: policy.decide(outcome, attempt: attempt)))
        }
    }

    /// The outcome and APNs reason in the fan-out's terms (a reason Apple adds later is labelled `unknown`,
    /// so a metric label never takes an unbounded value).
    static func answer(_ outcome: APNsOutcome, decision: DeliveryDecision) -> ProviderAnswer {
        let kind: SendOutcome
        switch outcome {
        case .delivered: kind = .delivered
        case .rejected, .rejectedLocally: kind = .rejected
        case .failed: kind = .failed
        }
        let label = outcome.reason.map { reason -> String in
            if case .unknown = reason { return "unknown" }
            return reason.name
        }
        return ProviderAnswer(
            decision: decision, reason: outcome.reason?.description, outcome: kind, reasonLabel: label,
            status: outcome.status ?? outcome.reason?.status)
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

    init(content: APNsContent, topic: String) {
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
