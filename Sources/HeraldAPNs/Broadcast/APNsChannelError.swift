/// Why a channel-management request did not do what was asked.
public enum APNsChannelError: Error, Sendable, Hashable, CustomStringConvertible {
    /// APNs answered with an error status and reason (`apns-request-id` for a question to Apple).
    case rejected(status: Int, reason: APNsBroadcastReason, requestID: String?)
    /// APNs answered, but not as documented: a 2xx without `apns-channel-id`, a body that is not the
    /// documented JSON, an error without a reason.
    case unexpectedAnswer(status: Int, detail: String)
    /// No answer (connection, TLS, timeout), or no provider token could be signed (`.credentials`).
    case failed(APNsTransportError)

    /// The HTTP status, if APNs answered.
    public var status: Int? {
        switch self {
        case .rejected(let status, _, _), .unexpectedAnswer(let status, _): status
        case .failed: nil
        }
    }

    /// Apple's reason, if APNs gave one.
    public var reason: APNsBroadcastReason? {
        if case .rejected(_, let reason, _) = self { return reason }
        return nil
    }

    public var description: String {
        switch self {
        case .rejected(let status, let reason, _): "APNs answered \(status) \(reason)"
        case .unexpectedAnswer(let status, let detail): "APNs answered \(status) unexpectedly: \(detail)"
        case .failed(let error): "no answer from APNs: \(error)"
        }
    }
}
