import HTTPTypes
import HeraldMetrics
import Logging
import NIOCore
import NIOHTTP1

/// Guards a connection until its first request head is read, while the HTTP server with a WebSocket
/// upgrade has not yet built the rest of its pipeline (it decides between HTTP and WebSocket on that
/// head, and only then adds `ProtocolErrorHandler`, `RequestDeadlineHandler` and Hummingbird's idle
/// timeout). Until then this handler, just after the HTTP decoder:
/// - answers a decoder error (a bad request line or header) as `ProtocolErrorHandler` would, with
///   Herald's error shape, and closes;
/// - closes a connection whose first head has not arrived within the request timeout (a silent client,
///   or a head sent a byte at a time), as Hummingbird's idle timeout does for later requests.
/// On the first head it steps aside (removes itself), so an upgraded connection never sees it.
final class FirstRequestGuard: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart

    private let timeout: TimeAmount
    private let logger: Logger
    private let metrics: HeraldMetrics
    private var timer: Scheduled<Void>?
    private var done = false
    /// It answered a decoder error: what else the connection brings is dropped.
    private var answered = false

    init(timeout: TimeAmount, logger: Logger, metrics: HeraldMetrics) {
        self.timeout = timeout
        self.logger = logger
        self.metrics = metrics
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
        timer = context.eventLoop.assumeIsolated().scheduleTask(in: timeout) { [self] in
            guard !done else { return }
            done = true
            loopBound.value.close(promise: nil)
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !done else { return }
        done = true
        timer?.cancel()
        context.fireChannelRead(data)
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if answered { return }
        guard let parserError = error as? HTTPParserError, !done else {
            context.fireErrorCaught(error)
            return
        }
        done = true
        answered = true
        timer?.cancel()
        let fault = ProtocolFault(parserError, transferEncoding: nil)
        metrics.protocolError(kind: fault.kind)
        logger.debug("unreadable request", metadata: ["herald.kind": "\(fault.kind)", "herald.status": "\(fault.status.code)"])
        fault.answerBelowEncoder(context: context)
    }
}
