import HeraldMetrics
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOHTTP1

/// Herald's HTTP connections: Hummingbird's HTTP/1.1 channel with a WebSocket upgrade (for the stream of a
/// subscription), with `FirstRequestGuard` after the HTTP decoder until the first request head is read,
/// then `UpgradeOfferHandler`, which answers other upgrade offers (`h2c`) over HTTP/1.1.
struct HeraldChannel: ServerChildChannel {
    let upgradable: HTTP1WebSocketUpgradeChannel
    let firstRequestTimeout: TimeAmount
    /// The limits of the HTTP decoder `upgradable` builds, for the ones `UpgradeOfferHandler` builds.
    let decoderLimits: NIOHTTPDecoderLimitConfiguration
    let logger: Logger
    let metrics: HeraldMetrics

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<HTTP1WebSocketUpgradeChannel.Value> {
        upgradable.setup(channel: channel, logger: logger).flatMapThrowing { value in
            let pipeline = channel.pipeline.syncOperations
            let decoder = try pipeline.handler(type: ByteToMessageHandler<HTTPRequestDecoder>.self)
            // Each after the decoder: the guard first, then the upgrade offers' handler.
            try pipeline.addHandler(UpgradeOfferHandler(decoder: decoder, decoderLimits: decoderLimits), position: .after(decoder))
            try pipeline.addHandler(
                FirstRequestGuard(timeout: firstRequestTimeout, logger: self.logger, metrics: metrics), position: .after(decoder))
            return value
        }
    }

    func handle(value: HTTP1WebSocketUpgradeChannel.Value, logger: Logger) async {
        await upgradable.handle(value: value, logger: logger)
    }
}
