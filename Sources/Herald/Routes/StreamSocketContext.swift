import Hummingbird
import HummingbirdWebSocket

/// The context of the router that decides WebSocket upgrades (asked only for requests that ask to upgrade).
///
/// Its `webSocket` reference is held through a `Holder`, strongly by the context hummingbird-websocket
/// makes for the upgrade and weakly by the copy the routes see (`forRoutes`, which
/// `WebSocketReferenceMiddleware` hands them). Why: a `ws` route stores the context it is given inside
/// that same reference (`WebSocketHandlerReference.Value(context:handler:)`, hummingbird-websocket
/// 2.8.1), so a copy holding the reference strongly would make a cycle that is never broken: each
/// WebSocket upgrade left its context behind (the logger with its metadata, the path parameters, two
/// locks; about 1 KB, BENCHMARKS.md section 35). Held weakly there, the reference lives as long as the
/// upgrade's own context (until the upgrade has read the handler from it), then goes with what it holds.
struct StreamSocketContext: RequestContext, WebSocketRequestContext {
    var coreContext: CoreRequestContextStorage
    private var slot: Slot

    init(source: Source) {
        coreContext = .init(source: source)
        slot = .strong(Holder())
    }

    /// The reference the upgrade reads the matched route's handler from; an empty one once it is gone
    /// (only the routes' copy can outlive it, and nothing reads it there after the route has run).
    var webSocket: WebSocketHandlerReference<Self> {
        switch slot {
        case .strong(let holder): holder.reference
        case .weak(let weak): weak.holder?.reference ?? WebSocketHandlerReference()
        }
    }

    /// This context as the routes may keep it: the same, its `webSocket` reference held weakly.
    var forRoutes: Self {
        var copy = self
        if case .strong(let holder) = slot { copy.slot = .weak(WeakHolder(holder: holder)) }
        return copy
    }

    /// The holder, for a test to watch it go.
    var holder: AnyObject? {
        switch slot {
        case .strong(let holder): holder
        case .weak(let weak): weak.holder
        }
    }

    final class Holder: Sendable {
        let reference = WebSocketHandlerReference<StreamSocketContext>()
    }

    struct WeakHolder: Sendable {
        weak let holder: Holder?
    }

    enum Slot: Sendable {
        case strong(Holder)
        case weak(WeakHolder)
    }
}
