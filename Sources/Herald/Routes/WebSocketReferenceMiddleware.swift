import Hummingbird

/// Gives the WebSocket router's routes `StreamSocketContext.forRoutes`, the context whose `webSocket`
/// reference they may store inside that reference without keeping it alive (see `StreamSocketContext`).
/// First on the router, so every route, the RT ones added later included, gets it.
struct WebSocketReferenceMiddleware: RouterMiddleware {
    typealias Context = StreamSocketContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        try await next(request, context.forRoutes)
    }
}
