import HeraldCurl

/// How one send ended. Every notification handed to the client ends in exactly one outcome.
public enum APNsOutcome: Sendable, Hashable {
    /// APNs accepted it (200).
    case delivered(APNsResponse)
    /// APNs answered with an error status and reason.
    case rejected(APNsResponse)
    /// Not sent: APNs would have rejected it with this reason.
    case rejectedLocally(APNsReason)
    /// No answer from APNs.
    case failed(APNsTransportError)

    /// The reason, whoever gave it.
    public var reason: APNsReason? {
        switch self {
        case .delivered: nil
        case .rejected(let response): response.reason
        case .rejectedLocally(let reason): reason
        case .failed: nil
        }
    }

    /// The HTTP status, if APNs answered.
    public var status: Int? {
        switch self {
        case .delivered(let response), .rejected(let response): response.status
        case .rejectedLocally, .failed: nil
        }
    }

    public var isDelivered: Bool {
        if case .delivered = self { return true }
        return false
    }
}
