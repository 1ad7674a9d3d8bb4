import NIOCore
import NIOHTTPTypes

/// Closes a connection whose request has not arrived whole within `timeout` of its head.
///
/// Hummingbird's idle timeout (`http.idleTimeoutSeconds`) restarts with every request part it reads, so
/// it cuts off a silent client or a request head sent a byte at a time, but not a body sent a few bytes
/// at a time: each chunk restarts it. This handler sits between the HTTP decoder and Hummingbird and
/// gives each request one deadline from its head to its end. A request whose end has arrived is never
/// cut off, however long Herald takes to answer it.
final class RequestDeadlineHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart

    private let timeout: TimeAmount
    private var deadline: Scheduled<Void>?

    init(timeout: TimeAmount) {
        self.timeout = timeout
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head:
            deadline?.cancel()
            let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
            deadline = context.eventLoop.assumeIsolated().scheduleTask(in: timeout) {
                loopBound.value.close(promise: nil)
            }
        case .end:
            deadline?.cancel()
            deadline = nil
        case .body:
            break
        }
        context.fireChannelRead(data)
    }

    func channelInactive(context: ChannelHandlerContext) {
        deadline?.cancel()
        deadline = nil
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        deadline?.cancel()
        deadline = nil
    }
}
