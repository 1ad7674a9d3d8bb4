/// One provider's answer to one send, reduced to what the fan-out acts on, whichever service answered.
public struct ProviderAnswer: Sendable {
    /// What happens next (done, retry, remove or deactivate the token, fail, abort the message).
    public var decision: DeliveryDecision
    /// The service's reason, for the delivery history and the failure message.
    public var reason: String?
    /// For the metrics: the outcome and a reason label from a bounded set (`unknown` for a new one).
    public var outcome: SendOutcome
    public var reasonLabel: String?
    /// The service's HTTP status (for a refusal made before sending, the status the service would have
    /// answered); nil when no answer came.
    public var status: Int?

    public init(
        decision: DeliveryDecision, reason: String?, outcome: SendOutcome, reasonLabel: String?, status: Int? = nil
    ) {
        self.decision = decision
        self.reason = reason
        self.outcome = outcome
        self.reasonLabel = reasonLabel
        self.status = status
    }

    /// What the delivery statistics count this answer as when it is final and not a delivery.
    public var failureClass: FailureClass { FailureClass(decision: decision, status: status) }
}

/// Sends one message's notifications through one provider: built once per fan-out from the message's
/// content for that provider, then called for every recipient the provider serves.
public protocol MessageSender: Sendable {
    var provider: PushProvider { get }
    /// Sends to `recipient`; `completion` runs once, quickly, on the client's thread (or the caller's
    /// when the send was refused before it left).
    func send(_ recipient: Recipient, attempt: Int, completion: @escaping @Sendable (ProviderAnswer) -> Void)
}

/// One app's client for one provider (it owns connections and a thread), made on first use by the
/// dispatcher's `ProviderClients` and shut down with it. This is the seam between the dispatcher and a
/// push service: each provider module (HeraldAPNs, HeraldFCM) implements it, with its own retry policy
/// and its own mapping of the service's answers; the server's configuration registers a factory per app.
public protocol PushClient: Sendable {
    var provider: PushProvider { get }
    /// The sender for a message with these contents, or nil when they have nothing for this provider.
    func sender(for contents: MessageContents) -> (any MessageSender)?
    /// How many sends it takes at most before their outcomes are read: every stream of every connection,
    /// and as many again waiting in the client (`CurlMultiLoop.maxInFlight`).
    var maxInFlight: Int { get }
    /// Closes every connection; sends still pending end as cancelled.
    func shutdown()
    /// Its connections now (the console's provider health and the metrics).
    var connections: ClientConnections { get }
}

/// A push client's connections: open now, sends in flight on them, and how many it has replaced.
public struct ClientConnections: Sendable, Equatable {
    public var open: Int
    public var inFlight: Int
    /// Connections shut down since the client started because they answered nothing for a whole request
    /// timeout (a hung peer, a path a NAT dropped); their sends were retried on new ones.
    public var replaced: Int

    public init(open: Int, inFlight: Int, replaced: Int) {
        self.open = open
        self.inFlight = inFlight
        self.replaced = replaced
    }
}
