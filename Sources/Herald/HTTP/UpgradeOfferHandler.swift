import NIOCore
import NIOHTTP1

/// Answers a request that offers an upgrade Herald does not take (`Upgrade: h2c`: curl `--http2`, Java's
/// `HttpClient` by default) over HTTP/1.1, and keeps the connection, as RFC 9110 §7.8 allows. Sits just
/// after the HTTP decoder. Two things in NIO (2.101) would otherwise break such a request:
/// - the upgrade handler, on the first request, drops a head whose offer no upgrader takes (and its
///   body), so Hummingbird closes the connection without an answer: every head's unusable offer is taken
///   out here (`HTTPRequestHead.decliningUpgradeOffer`);
/// - the decoder (llhttp) treats any request with `Upgrade` and `Connection: upgrade` as the end of
///   HTTP on the connection and parses nothing after it, so the next request would hang until the idle
///   timeout: at that request's end the decoder is replaced by a fresh one, and the bytes the old one
///   held back (a pipelined request) are handed to it (`leftOverBytesStrategy: .forwardBytes`), as NIO's
///   own upgrade path hands them to the new protocol.
///
/// A fresh decoder is not paired with NIO's response encoder (that pairing is internal to NIO), so the
/// encoder no longer learns which requests were HEAD: for those this handler drops the answer's body
/// parts itself. A first request that is a WebSocket handshake is left to the upgrader, and this handler
/// steps aside, since the connection may stop being HTTP.
final class UpgradeOfferHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    /// The decoder reading the connection now (replaced after each request that stops it).
    private var decoder: ByteToMessageHandler<HTTPRequestDecoder>
    private let decoderLimits: NIOHTTPDecoderLimitConfiguration
    private var firstHead = true
    /// The request being read stopped the decoder: it is replaced at the request's end.
    private var replaceAtEnd = false
    /// The decoder in place is one made here, which does not tell the encoder about HEAD requests.
    private var replaced = false
    /// For each request not yet answered, in order: whether its answer's body is dropped here.
    private var bodiless = CircularBuffer<Bool>()
    private var droppingBody = false

    init(decoder: ByteToMessageHandler<HTTPRequestDecoder>, decoderLimits: NIOHTTPDecoderLimitConfiguration) {
        self.decoder = decoder
        self.decoderLimits = decoderLimits
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            defer { firstHead = false }
            if firstHead, head.isWebSocketHandshake {
                context.fireChannelRead(data)
                context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
                return
            }
            replaceAtEnd = head.stopsHTTPDecoder
            bodiless.append(replaced && head.method == .HEAD)
            context.fireChannelRead(head.decliningUpgradeOffer().map { wrapInboundOut(.head($0)) } ?? data)
        case .body:
            context.fireChannelRead(data)
        case .end:
            context.fireChannelRead(data)
            if replaceAtEnd {
                replaceAtEnd = false
                replaceDecoder(context: context)
            }
        }
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(let response):
            // A 1xx other than 101 is followed by the real answer's head.
            if !(100..<200).contains(response.status.code) || response.status == .switchingProtocols {
                droppingBody = bodiless.popFirst() ?? false
            }
        case .body where droppingBody:
            promise?.succeed()
            return
        case .body:
            break
        case .end:
            droppingBody = false
        }
        context.write(data, promise: promise)
    }

    /// Puts a fresh decoder right after the stopped one and removes the stopped one, which hands what
    /// it holds unread to the fresh one (NIO's upgrade path does the same when it removes the decoder).
    private func replaceDecoder(context: ChannelHandlerContext) {
        let pipeline = context.pipeline.syncOperations
        let fresh = ByteToMessageHandler(HTTPRequestDecoder(leftOverBytesStrategy: .forwardBytes, limitConfiguration: decoderLimits))
        do {
            try pipeline.addHandler(fresh, position: .after(decoder))
        } catch {
            // Only when the connection is going away.
            context.close(promise: nil)
            return
        }
        // The bytes handed over come with no read-complete event, and Hummingbird's async channel only
        // passes on what it read at one: give them one, or a pipelined request would wait for more bytes.
        let removed = context.eventLoop.makePromise(of: Void.self)
        removed.futureResult.assumeIsolated().whenSuccess { context.fireChannelReadComplete() }
        pipeline.removeHandler(decoder, promise: removed)
        decoder = fresh
        replaced = true
    }
}
