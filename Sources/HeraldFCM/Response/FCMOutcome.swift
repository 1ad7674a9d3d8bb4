import HeraldCurl

/// How one send ended. Every message handed to the client ends in exactly one outcome.
public enum FCMOutcome: Sendable, Hashable {
    /// FCM accepted it (200); the message's name, `projects/{project}/messages/{id}`.
    case delivered(messageName: String)
    /// FCM answered with an error status.
    case rejected(FCMResponse)
    /// No answer from FCM, or no access token to send with.
    case failed(FCMTransportError)

    /// The error code, if FCM gave one.
    public var errorCode: FCMErrorCode? {
        if case .rejected(let response) = self { return response.errorCode }
        return nil
    }

    /// The HTTP status, if FCM answered.
    public var status: Int? {
        switch self {
        case .delivered: 200
        case .rejected(let response): response.status
        case .failed: nil
        }
    }

    public var isDelivered: Bool {
        if case .delivered = self { return true }
        return false
    }
}
