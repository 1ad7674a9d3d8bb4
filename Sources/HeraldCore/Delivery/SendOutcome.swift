/// How one notification ended at its push service, in terms every provider shares (the metrics'
/// `outcome` label).
public enum SendOutcome: String, Sendable, CaseIterable {
    /// The provider accepted it.
    case delivered
    /// The provider (or Herald, before sending) refused it with a reason.
    case rejected
    /// No answer: a connection, TLS or timeout failure.
    case failed
}
