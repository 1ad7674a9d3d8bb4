import HeraldCore
import Hummingbird

/// Which methods a path has routes for, so that a known path asked with another method answers 405
/// with an `Allow` header instead of 404 (Hummingbird's router knows only "no route for this method").
///
/// Filled once from the router after every route is added (`load`), before the server starts.
final class RouteMethods: Sendable {
    private struct Route: Sendable {
        let path: RouterPath
        let method: HTTPRequest.Method
    }

    private let routes = Locked<[Route]>([])

    func load<Context: RequestContext>(_ descriptions: [Router<Context>.RouteDescription]) {
        routes.withLock { $0 = descriptions.map { Route(path: $0.path, method: $0.method) } }
    }

    /// Whether a route's path matches a request path's segments, one element each.
    static func matches(_ path: RouterPath, _ segments: [Substring]) -> Bool {
        path.components.count == segments.count && zip(path.components, segments).allSatisfy { element, segment in element ~= segment }
    }

    /// The methods of the routes `path` matches, most specific routes first as the router picks them
    /// (a literal segment wins over a parameter at the first place they differ); empty when none does.
    func allowed(for path: String) -> [HTTPRequest.Method] {
        let segments = path.split(separator: "/", omittingEmptySubsequences: true)
        let matching = routes.withLock { routes in
            routes.filter { Self.matches($0.path, segments) }
        }
        guard !matching.isEmpty else { return [] }
        // The literal segments of each match, as a key that orders like the router's preference.
        func literals(_ route: Route) -> [Bool] {
            route.path.components.map { $0.description.hasPrefix("{") == false && $0.description != "*" }
        }
        let best = matching.map(literals).max { $0.lexicographicallyPrecedes($1) { !$0 && $1 } }
        let methods = matching.filter { literals($0) == best }.map(\.method)
        var seen = Set<HTTPRequest.Method>()
        return methods.filter { seen.insert($0).inserted }.sorted { $0.rawValue < $1.rawValue }
    }
}
