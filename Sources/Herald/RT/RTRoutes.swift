import HeraldCore
import HeraldSocketIO
import Hummingbird
import HummingbirdWebSocket

/// Backendless RT's address on Herald's HTTP port: the SDKs' socket.io clients use the path
/// `/{appId}/` (Engine.IO's polling requests, and its WebSocket upgrade) and the namespace `/{appId}`.
///
/// A request on the path without the `EIO` parameter is not Engine.IO's and gets the usual 404; a
/// handshake for an app Herald does not have gets 2002 as every app route does. The key is checked
/// when the client connects to the namespace, where the SDK can report the refusal.
struct RTRoutes {
    let server: SocketIOServer
    let handler: BackendlessRT

    static let path = RouterPath("/{appId}")

    func add(to router: Router<HeraldRequestContext>) {
        for method in [HTTPRequest.Method.get, .post, .options] {
            router.on(Self.path, method: method) { request, context in
                try check(request)
                return await server.respond(to: request)
            }
        }
    }

    /// The WebSocket transport: an upgrade the Engine.IO server takes (a new session, or one upgrading
    /// from polling); any other upgrade on the path is answered as a plain request.
    func add(to router: Router<StreamSocketContext>) {
        router.ws(
            Self.path,
            shouldUpgrade: { request, _ in
                server.acceptsUpgrade(request) && handler.app(ofPath: request.uri.path) != nil ? .upgrade([:]) : .dontUpgrade
            }
        ) { inbound, outbound, context in
            await server.serve(inbound, outbound, request: context.request)
        }
    }

    private func check(_ request: Request) throws(HeraldFault) {
        guard request.uri.queryParameters["EIO"] != nil else { throw .noSuchRoute }
        if request.uri.queryParameters["sid"] == nil, handler.app(ofPath: request.uri.path) == nil { throw .unknownApplication }
    }
}
