import Foundation
import HeraldCore
import HeraldCurl

/// How one send ended. Every notification handed to the client ends in exactly one outcome.
public enum WebPushOutcome: Sendable, Hashable {
    /// The push service took it (201 Created; some services answer 200 or 202).
    case delivered(status: Int)
    /// The push service answered with an error status.
    case rejected(WebPushResponse)
    /// No answer, or nothing was sent (the subscription or the payload could not be used, the VAPID key
    /// could not sign).
    case failed(WebPushTransportError)

    public var isDelivered: Bool {
        if case .delivered = self { return true }
        return false
    }
}

/// A send that got no answer from the push service, or never went out: the shared curl layer's type,
/// with `.credentials` when the VAPID token could not be signed and `.other` when the subscription or
/// the payload could not be encrypted.
public typealias WebPushTransportError = ProviderTransportError

/// What a push service answered with an error status.
public struct WebPushResponse: Sendable, Hashable {
    public var status: Int
    /// The service's own words, when its body carried some (`message` or `error` of a JSON body, or the
    /// text): autopush and FCM explain a 400 or 403 there.
    public var message: String?
    /// The `Retry-After` header, in seconds, when it was given as a number.
    public var retryAfterSeconds: Int?

    public init(status: Int, message: String? = nil, retryAfterSeconds: Int? = nil) {
        self.status = status
        self.message = message
        self.retryAfterSeconds = retryAfterSeconds
    }

    /// Reads an error answer: a JSON body's `message` (autopush, the mock), else its `error` text, else a
    /// short plain-text body; `Retry-After` as delta-seconds.
    init(status: Int, body: [UInt8], retryAfter: String?) {
        let seconds = retryAfter.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }.flatMap { $0 >= 0 ? $0 : nil }
        self.init(status: status, message: Self.words(body), retryAfterSeconds: seconds)
    }

    static func words(_ body: [UInt8]) -> String? {
        guard !body.isEmpty else { return nil }
        if case .object(let fields)? = try? JSONValue.parse(body) {
            for key in ["message", "error"] {
                if case .string(let text)? = fields[key], !text.isEmpty { return String(text.prefix(200)) }
            }
            return nil
        }
        let text = String(String(decoding: body.prefix(1024), as: UTF8.self).prefix(200)).trimmingCharacters(in: .whitespacesAndNewlines)
        return text.isEmpty || text.hasPrefix("<") ? nil : text
    }
}
