import HeraldCurl

/// A send that got no answer from APNs: the notification may or may not have arrived, except
/// where `kind` says the server never saw it.
public struct APNsTransportError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Kind: String, Sendable, Hashable {
        /// No connection: DNS, refused, unreachable. APNs never saw the request.
        case connect
        /// The TLS handshake failed: certificate, CA file, protocol.
        case tls
        /// The server reset or refused the stream, or went away (GOAWAY) before answering.
        case streamReset
        /// The connection broke while the request was in flight.
        case connectionLost
        /// The connect or request timeout passed.
        case timeout
        /// The client was shut down before the answer came.
        case cancelled
        /// Nothing was sent: the client could not sign a provider token with its key.
        case credentials
        /// Anything else libcurl reported (a bug or a misconfiguration on our side).
        case other
    }

    public var kind: Kind
    /// libcurl's result code; negative or 0 when the failure is ours (-1 cancelled).
    public var curlCode: Int
    /// libcurl's text for it, with detail from its error buffer.
    public var message: String

    public init(kind: Kind, curlCode: Int, message: String) {
        self.kind = kind
        self.curlCode = curlCode
        self.message = message
    }

    public var description: String { "\(kind.rawValue): \(message) (curl \(curlCode))" }
}

extension APNsTransportError.Kind {
    /// The same failure as HeraldCurl sorts it.
    init(_ kind: CurlFailureKind) {
        switch kind {
        case .connect: self = .connect
        case .tls: self = .tls
        case .streamReset: self = .streamReset
        case .connectionLost: self = .connectionLost
        case .timeout: self = .timeout
        case .cancelled: self = .cancelled
        case .other: self = .other
        }
    }
}
