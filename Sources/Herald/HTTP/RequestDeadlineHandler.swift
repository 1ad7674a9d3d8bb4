import NIOCore
import NIOHTTPTypes

/// Answers 408 and closes a connection whose request has not arrived whole within `timeout`.
///
/// Hummingbird's idle timeout (`http.idleTimeoutSeconds`) restarts with every request part it reads, so
/// it cuts off a silent client or a request head sent a byte at a time, but not a body sent a few bytes
/// at a time: each chunk restarts it. This handler sits between the HTTP decoder and Hummingbird and
/// gives a request one deadline for its body, counted from its head, or, when its head came while
/// Herald was still answering an earlier request on the connection (pipelining), from that answer's
/// end: time Herald itself spends is never held against the client. A request whose end has arrived is
/// never cut off, however long Herald takes to answer it.
final class RequestDeadlineHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let timeout: TimeAmount
    private var deadline: Scheduled<Void>?
    /// Requests whose head arrived and whose answer has not ended yet.
    private var unanswered = 0
    /// The newest request's head arrived and its end has not.
    private var receiving = false

    init(timeout: TimeAmount) {
        self.timeout = timeout
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head:
            unanswered += 1
            receiving = true
            // Only when Herald owes no earlier answer; otherwise the clock starts when that answer ends.
            if unanswered == 1 { arm(context) }
        case .end:
            receiving = false
            disarm()
        case .body:
            break
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) {
            unanswered = max(0, unanswered - 1)
            // The request still arriving is now the oldest one: its body's time starts.
            if receiving && unanswered == 1 && deadline == nil { arm(context) }
        }
        context.write(data, promise: promise)
    }

    func channelInactive(context: ChannelHandlerContext) {
        disarm()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        disarm()
    }

    private func arm(_ context: ChannelHandlerContext) {
        disarm()
        let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
        let timeout = self.timeout
        deadline = context.eventLoop.assumeIsolated().scheduleTask(in: timeout) {
            // ProtocolErrorHandler answers 408 (through the route when one reads the body) and closes; if
            // nothing answers within another timeout, the connection is closed without an answer.
            loopBound.value.pipeline.fireErrorCaught(RequestBodyTimedOut())
            loopBound.value.eventLoop.assumeIsolated().scheduleTask(in: timeout) { loopBound.value.close(promise: nil) }
        }
    }

    private func disarm() {
        deadline?.cancel()
        deadline = nil
    }
}
