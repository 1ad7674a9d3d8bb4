import HeraldCurl

/// A send that got no answer from FCM, or never went out because no access token could be had.
/// The message may or may not have arrived, except where `kind` says FCM never saw it.
public struct FCMTransportError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Kind: String, Sendable, Hashable {
        /// No connection (to FCM or to the token endpoint): nothing was sent.
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
        /// Nothing was sent: the token endpoint refused the service account (Google's
        /// `error_description` is in the message), or the assertion could not be signed.
        case credentials
        /// Nothing was sent: the token endpoint answered 429 or 5xx; worth trying again later.
        case tokenUnavailable
        /// Anything else (a bug or a misconfiguration on our side).
        case other

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

    public var kind: Kind
    /// libcurl's result code; 0 when the failure is not curl's (-1 cancelled).
    public var curlCode: Int
    /// What went wrong, in curl's or Google's words; never a token or a key.
    public var message: String

    public init(kind: Kind, curlCode: Int, message: String) {
        self.kind = kind
        self.curlCode = curlCode
        self.message = message
    }

    /// A failed transfer, sorted by its curl code.
    init(curlCode: Int, message: String) {
        self.init(kind: Kind(CurlFailureKind(curlCode: curlCode)), curlCode: curlCode, message: message)
    }

    public var description: String { "\(kind.rawValue): \(message) (curl \(curlCode))" }
}
