/// A send to a push provider that got no answer, or never went out because the client had no valid
/// credentials. The notification may or may not have arrived, except where `kind` says the server
/// never saw it. Provider-neutral: APNs, FCM and every later HTTP/2 provider sort libcurl's codes the
/// same way (`APNsTransportError` and `FCMTransportError` are this type).
public struct ProviderTransportError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Kind: String, Sendable, Hashable {
        /// No connection: DNS, refused, unreachable. The server never saw the request.
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
        /// Nothing was sent: the client has no credentials to send with (a key that cannot sign, an
        /// account the token endpoint refused).
        case credentials
        /// Nothing was sent: the service that issues access tokens answered 429 or 5xx; worth trying
        /// again later.
        case tokenUnavailable
        /// Anything else libcurl reported (a bug or a misconfiguration on our side).
        case other

        /// Sorts libcurl's result code (`CurlCompletion.code`, `CurlTransfer.Failure.code`); -1 is the
        /// loop's own "stopped".
        public init(curlCode code: Int) {
            switch code {
            case -1: self = .cancelled
            case 6, 7: self = .connect  // COULDNT_RESOLVE_HOST, COULDNT_CONNECT
            case 28: self = .timeout  // OPERATION_TIMEDOUT
            case 35, 53, 54, 58, 59, 60, 64, 66, 77, 80, 82, 83, 90, 91, 98: self = .tls  // SSL_* and PEER_FAILED_VERIFICATION
            case 16, 92: self = .streamReset  // HTTP2 (framing, GOAWAY), HTTP2_STREAM (RST_STREAM, REFUSED_STREAM)
            // PARTIAL_FILE: "HTTP/2 stream N was not closed cleanly", the server closed the stream or
            // the connection (GOAWAY, dropped) before the answer was complete.
            case 18: self = .streamReset
            case 52, 55, 56: self = .connectionLost  // GOT_NOTHING, SEND_ERROR, RECV_ERROR
            default: self = .other
            }
        }
    }

    public var kind: Kind
    /// libcurl's result code; negative or 0 when the failure is ours (-1 cancelled).
    public var curlCode: Int
    /// libcurl's text for it, with detail from its error buffer, or the provider's words; never a
    /// token or a key.
    public var message: String

    public init(kind: Kind, curlCode: Int, message: String) {
        self.kind = kind
        self.curlCode = curlCode
        self.message = message
    }

    /// A failed transfer, sorted by its curl code.
    public init(curlCode: Int, message: String) {
        self.init(kind: Kind(curlCode: curlCode), curlCode: curlCode, message: message)
    }

    public var description: String { "\(kind.rawValue): \(message) (curl \(curlCode))" }
}
