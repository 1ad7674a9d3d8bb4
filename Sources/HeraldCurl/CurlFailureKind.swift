/// What a failed transfer's libcurl result code means to a caller deciding whether to try again.
/// Provider-neutral: APNs, FCM and every later HTTP/2 provider sort curl's codes the same way and
/// keep only their own words for it.
public enum CurlFailureKind: String, Sendable, Hashable {
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
    /// The loop stopped (the client was shut down) before the answer came.
    case cancelled
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
