import Foundation
import HTTPTypes
import HeraldCore
import Hummingbird
import NIOCore
import NIOHTTP1

/// What Herald answers to a request it cannot read as HTTP: the client's fault, never a 5xx.
///
/// The HTTP decoder reports these as `HTTPParserError`s: before a route is matched (a bad request line
/// or header) `ProtocolErrorHandler` answers them itself; while a route reads a body (a bad chunk) the
/// route's read fails and `FaultMiddleware` answers. Either way the answer is Herald's error shape
/// with the HTTP status as its code, the connection closes after it (the decoder cannot find the next
/// request in what follows), and `herald_http_protocol_errors_total{kind}` counts it.
struct ProtocolFault: Error, Sendable, Equatable {
    let status: HTTPResponse.Status
    let message: String
    /// A bounded name for the metric's label and the log.
    let kind: String

    var fault: HeraldFault { HeraldFault(code: status.code, kind: .validation, message: message) }

    /// The answer to a decoder error. `transferEncoding` is the `Transfer-Encoding` of the request whose
    /// head was read, if any: llhttp reports a coding other than chunked only as an unknown error.
    init(_ error: HTTPParserError, transferEncoding: String?) {
        switch error {
        case .headerOverflow:
            self.init(
                .init(code: 431, reasonPhrase: "Request Header Fields Too Large"),
                "request head too large: a header line or the request line is over \(Limits.headerFieldBytes) bytes, "
                    + "the head over \(Limits.headerBytes) bytes, or there are over \(Limits.headerCount) headers",
                "header_overflow")
        case .invalidChunkSize:
            self.init(.badRequest, "malformed chunked body: a chunk size is not a hexadecimal number", "chunk_size")
        case .invalidContentLength:
            self.init(.badRequest, "Content-Length is not a number of bytes", "content_length")
        case .unexpectedContentLength:
            self.init(
                .badRequest, "Content-Length given twice with different values, or together with Transfer-Encoding",
                "conflicting_length")
        case .invalidMethod:
            self.init(.badRequest, "malformed request line: not an HTTP method", "method")
        case .invalidURL, .invalidPath, .invalidQueryString, .invalidFragment, .invalidHost, .invalidPort:
            self.init(.badRequest, "malformed request target", "target")
        case .invalidVersion:
            self.init(.badRequest, "unsupported HTTP version: Herald speaks HTTP/1.0 and HTTP/1.1", "version")
        case .invalidHeaderToken, .invalidCharactersUsed:
            self.init(.badRequest, "malformed header: a name or value holds a character HTTP does not allow", "header")
        case .lfExpected, .invalidConstant, .strictModeAssertion:
            self.init(.badRequest, "malformed request: a line or a chunk does not end where HTTP says it must", "framing")
        case .invalidEOFState, .closedConnection:
            self.init(.badRequest, "the request ended before it was whole", "truncated")
        default:
            if let coding = transferEncoding, coding.lowercased() != "chunked" {
                self.init(
                    .init(code: 501, reasonPhrase: "Not Implemented"),
                    "Transfer-Encoding '\(coding.prefix(40))' is not supported: send the body as it is (Content-Length) or chunked",
                    "transfer_encoding")
            } else {
                self.init(.badRequest, "malformed HTTP request", "other")
            }
        }
    }

    /// A request whose body did not arrive whole in time (`http.idleTimeoutSeconds` from its head).
    static let bodyTimedOut = ProtocolFault(
        .requestTimeout, "the request body did not arrive whole within http.idleTimeoutSeconds of its head", "body_timeout")

    /// CONNECT: Herald is no proxy.
    static let connect = ProtocolFault(.badRequest, "CONNECT is not supported: Herald is not a proxy", "connect")

    private init(_ status: HTTPResponse.Status, _ message: String, _ kind: String) {
        self.status = status
        self.message = message
        self.kind = kind
    }

    /// The answer as a JSON body, for a handler that writes it itself.
    var body: ByteBuffer {
        let json = JSONValue.object(["code": .integer(Int64(status.code)), "message": .string(message)])
        return ByteBuffer(bytes: (try? JSONEncoder.herald.encode(json)) ?? Data())
    }
}
