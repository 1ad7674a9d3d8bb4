import HTTPTypes
import HeraldCore
import HeraldMetrics
import HeraldStore
import Hummingbird
import Logging
import NIOCore
import NIOEmbedded
import Testing

@testable import Herald

/// A WebSocket upgrade leaves nothing behind once it is decided. hummingbird-websocket's `ws` route
/// stores the request context inside that context's own `webSocket` reference, a cycle that kept every
/// upgraded connection's context (about 1 KB) for the life of the process (BENCHMARKS.md section 34);
/// `StreamSocketContext` holds the reference weakly in the copy the routes keep.
@Suite struct WebSocketContextTests {
    @Test func anUpgradeTheRouterAcceptsDoesNotKeepItsContext() async throws {
        try await HeraldRuntime.withMigrated(.sqliteMemory, logger: Logger(label: "herald.tests")) { backend in
            let routes = PubSubRoutes(
                store: SQLPubSubStore(backend: backend), hub: nil, apps: try AppDirectory(apps: TestHerald.apps),
                clock: ManualClock(TestHerald.t0), configuration: PubSubConfiguration(), metrics: .disabled)
            let responder = routes.webSocketRouter().buildResponder()
            let channel = EmbeddedChannel()
            weak var holder: AnyObject?
            do {
                let context = StreamSocketContext(source: .init(channel: channel, logger: Logger(label: "herald.tests")))
                holder = context.holder
                let request = Request(
                    head: HTTPRequest(method: .get, scheme: "http", authority: "x", path: "/shop/k-client/messaging/news/sub-1/stream"),
                    body: .init(buffer: ByteBuffer()))
                let answer = try await responder.respond(to: request, context: context)
                // The stream route matched and chose its handler: what the upgrade then reads.
                #expect(answer.status == .ok)
                #expect(holder != nil)
            }
            #expect(holder == nil, "the context the upgrade was decided with is still alive")
            _ = try channel.finish()
        }
    }
}
