import HTTPTypes
import HeraldMetrics
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypes

/// Answers a request Herald cannot read as HTTP with Herald's error shape, then closes the connection.
///
/// Hummingbird answers a decoder error with an empty 400, and a decoder error inside a body reached a
/// route as an unknown error (500). This handler sits between the HTTP codec and Hummingbird and sees
/// every decoder error first. Where it is written depends on what the connection owes:
/// - no answer owed (a bad request line or header, or a bad body whose request was already answered):
///   it writes the answer here, at once;
/// - the request whose body is arriving is being answered by a route: the error goes on to the route,
///   whose body read fails and `FaultMiddleware` answers it; the connection closes after that answer;
/// - an earlier request's answer is still owed (pipelining): the error waits until that answer is out.
/// Whatever Hummingbird tries to write after that (its own empty 400) is dropped.
final class ProtocolErrorHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let logger: Logger
    private let metrics: HeraldMetrics
    /// Requests whose head arrived and whose answer has not ended.
    private var unanswered = 0
    /// The newest request's head arrived and its end has not.
    private var receiving = false
    /// The newest request's Transfer-Encoding, to tell an unsupported coding from other decoder errors.
    private var transferEncoding: String?
    /// An answer to write once the answers owed before it are out.
    private var pending: ProtocolFault?
    /// Close once the answer being written ends (a route is answering a decoder error).
    private var closeAfterAnswer = false
    /// Our answer is written: drop every later write.
    fileprivate var closing = false

    init(logger: Logger, metrics: HeraldMetrics) {
        self.logger = logger
        self.metrics = metrics
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !closing, pending == nil else { return }
        switch unwrapInboundIn(data) {
        case .head(let head) where head.method == .connect:
            // A proxy's method: the decoder hands over what follows as a tunnel, and no route takes it.
            metrics.protocolError(kind: ProtocolFault.connect.kind)
            if unanswered == 0 { answerConnect(context: context) } else { pending = .connect }
            return
        case .head(let head):
            unanswered += 1
            receiving = true
            transferEncoding = head.headerFields[.transferEncoding]
        case .end:
            receiving = false
        case .body:
            break
        }
        context.fireChannelRead(data)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        let fault: ProtocolFault
        switch error {
        case let parserError as HTTPParserError where !closing && pending == nil:
            fault = ProtocolFault(parserError, transferEncoding: receiving ? transferEncoding : nil)
        case is RequestBodyTimedOut where !closing && pending == nil:
            // Its answer, if one is owed, is already out: nobody waits for a second one.
            guard unanswered > 0 else {
                closing = true
                context.close(promise: nil)
                return
            }
            fault = .bodyTimedOut
        default:
            context.fireErrorCaught(error)
            return
        }
        metrics.protocolError(kind: fault.kind)
        logger.debug(
            "unreadable request", metadata: ["herald.kind": "\(fault.kind)", "herald.status": "\(fault.status.code)"])
        if unanswered == 0 {
            answer(fault, context: context)
        } else if receiving && unanswered == 1 {
            // The route answering this request reads its body: let its read fail, and close after its answer.
            closeAfterAnswer = true
            context.fireErrorCaught(ProtocolFaultError(fault: fault))
        } else {
            pending = fault
        }
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard !closing else {
            promise?.fail(ChannelError.ioOnClosedChannel)
            return
        }
        let part = unwrapOutboundIn(data)
        if case .head(let head) = part, head.headerFields[.connection]?.lowercased() == "close" {
            // The route asked to close (it answered without reading a body it refused): do so after the answer.
            closeAfterAnswer = true
        }
        guard case .end = part else {
            context.write(data, promise: promise)
            return
        }
        unanswered = max(0, unanswered - 1)
        context.write(data, promise: promise)
        if let pending, unanswered == 0 {
            self.pending = nil
            if pending == .connect { answerConnect(context: context) } else { answer(pending, context: context) }
        } else if closeAfterAnswer, unanswered == 0 {
            closing = true
            context.flush()
            context.close(promise: nil)
        }
    }

    /// Writes `fault` as the connection's last answer and closes it.
    private func answer(_ fault: ProtocolFault, context: ChannelHandlerContext) {
        closing = true
        let body = fault.body
        let head = HTTPResponse(
            status: fault.status,
            headerFields: [
                .contentType: "application/json", .contentLength: String(body.readableBytes), .connection: "close",
            ])
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.write(wrapOutboundOut(.body(body)), promise: nil)
        let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).assumeIsolated().whenComplete { _ in
            loopBound.value.close(promise: nil)
        }
    }
}

extension ProtocolErrorHandler {
    /// The answer to CONNECT, written as bytes below the HTTP encoder: the encoder drops the body of
    /// every answer to CONNECT (a 2xx one opens a tunnel), and a client is owed the error's JSON.
    private func answerConnect(context: ChannelHandlerContext) {
        closing = true
        ProtocolFault.connect.answerBelowEncoder(context: context)
    }
}

extension ProtocolFault {
    /// Writes this fault's answer as bytes below the HTTP encoder and closes the connection after it.
    func answerBelowEncoder(context: ChannelHandlerContext) {
        var body = self.body
        var bytes = ByteBuffer(
            string: "HTTP/1.1 \(status.code) \(status.reasonPhrase)\r\nContent-Type: application/json\r\n"
                + "Content-Length: \(body.readableBytes)\r\nConnection: close\r\n\r\n")
        bytes.writeBuffer(&body)
        guard let encoder = try? context.pipeline.syncOperations.context(handlerType: HTTPResponseEncoder.self) else {
            context.close(promise: nil)
            return
        }
        let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
        encoder.writeAndFlush(NIOAny(bytes)).assumeIsolated().whenComplete { _ in loopBound.value.close(promise: nil) }
    }
}

/// Raised by `RequestDeadlineHandler` from the pipeline's head when a request's body is late.
struct RequestBodyTimedOut: Error {}

/// A decoder error on its way to the route reading the body, with the answer it gets.
struct ProtocolFaultError: Error {
    let fault: ProtocolFault
}
