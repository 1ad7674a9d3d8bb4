import HeraldCore
import HeraldCurl

/// How one send ended. Every message handed to the client ends in exactly one outcome.
public enum FCMOutcome: Sendable, Hashable {
    /// FCM accepted it (200), with its answer.
    case delivered(FCMDelivery)
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

/// FCM's answer to an accepted message. Read only on demand: nothing in a fan-out needs the name, and
/// parsing every answer cost a few percent of the client's CPU.
public struct FCMDelivery: Sendable, Hashable {
    /// The 200 answer's body, `{"name": "projects/{project}/messages/{id}"}`.
    public let body: [UInt8]

    public init(body: [UInt8]) { self.body = body }

    /// The message's name, `projects/{project}/messages/{id}`; nil when the answer has none.
    public var messageName: String? {
        guard case .object(let answer)? = try? JSONValue.parse(body), case .string(let name)? = answer["name"] else { return nil }
        return name
    }
}
