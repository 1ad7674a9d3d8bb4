import Foundation
import HeraldCore
import Hummingbird

/// Which browser origins may call which app's client routes (`apps[].cors.allowedOrigins`).
///
/// A web app registers its browser the way a phone app registers its device: with the app's client key,
/// from a page on its own origin. Only the client-key routes a page needs answer cross-origin (the app's
/// info, the device's registration and launches); server and admin routes never do, whatever the
/// configuration, and no answer allows credentials: Herald's keys travel in the path, never in cookies.
struct CORSPolicy: Sendable {
    /// Each app's allowed origins, lower case; `*` allows any.
    private let origins: [String: Set<String>]

    /// The routes a page may call, with their methods: the JS SDK's `initApp` asks for the app's info
    /// (`rtURL`) before anything else.
    static let routes: [(path: RouterPath, methods: [HTTPRequest.Method])] = [
        ("/{appId}/{apiKey}/info", [.get]),
        ("/{appId}/{apiKey}/rt/lookup", [.get]),
        ("/{appId}/{apiKey}/messaging/registrations", [.post]),
        ("/{appId}/{apiKey}/messaging/registrations/{deviceId}", [.get, .delete]),
        ("/{appId}/{apiKey}/devices/{deviceId}/launches", [.post]),
        // Backendless RT's long polling (a browser app's socket.io client).
        ("/{appId}", [.get, .post]),
    ]
    /// Request headers a page may send: the body's type (not a CORS-safelisted value for JSON).
    static let allowedHeaders = "Content-Type"
    /// How long a browser may keep a preflight's answer (seconds).
    static let maxAge = "600"

    init(apps: [AppConfiguration]) {
        origins = Dictionary(
            uniqueKeysWithValues: apps.filter { !$0.allowedOrigins.isEmpty }.map { ($0.id, Set($0.allowedOrigins)) })
    }

    var isEmpty: Bool { origins.isEmpty }

    /// The methods `origin` may use on `path`, empty when it may not call it at all.
    func methods(origin: String, path: String) -> [HTTPRequest.Method] {
        let segments = path.split(separator: "/", omittingEmptySubsequences: true)
        guard let app = segments.first, let allowed = origins[String(app)],
            allowed.contains("*") || allowed.contains(origin.lowercased())
        else { return [] }
        return Self.routes.first { RouteMethods.matches($0.path, segments) }?.methods ?? []
    }

    /// `origin` as browsers send it (scheme, host, optional port; lower case), or nil when it is not one.
    static func normalizedOrigin(_ origin: String) -> String? {
        if origin == "*" { return origin }
        guard let url = URLComponents(string: origin), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme),
            let host = url.host, !host.isEmpty, url.path.isEmpty, url.query == nil, url.fragment == nil, url.user == nil
        else { return nil }
        return "\(scheme)://\(host.lowercased())" + (url.port.map { ":\($0)" } ?? "")
    }
}

/// Answers CORS preflights for the client routes an app allows, and marks their answers (errors too,
/// so a page can read Herald's error JSON) with the allowed origin. Requests without `Origin`, and
/// origins or routes the policy does not allow, pass untouched: the browser then blocks the answer.
struct CORSMiddleware<Context: RequestContext>: RouterMiddleware {
    let policy: CORSPolicy

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard !policy.isEmpty, let origin = request.headers[.origin] else { return try await next(request, context) }
        let methods = policy.methods(origin: origin, path: request.uri.path)
        if request.method == .options, let asked = request.headers[.accessControlRequestMethod] {
            // A preflight: what the page may do, or a refusal that carries no CORS header.
            guard let method = HTTPRequest.Method(asked), methods.contains(method) else {
                return FaultMiddleware<Context>.response(
                    HeraldFault(
                        code: 403, kind: .forbidden,
                        message: "cross-origin \(asked.prefix(20)) is not allowed on this route from this origin "
                            + "(apps[].cors.allowedOrigins; only the device routes of a client key answer cross-origin)"))
            }
            var response = Response(status: .noContent)
            mark(&response, origin: origin)
            response.headers[.accessControlAllowMethods] = methods.map(\.rawValue).joined(separator: ", ")
            response.headers[.accessControlAllowHeaders] = CORSPolicy.allowedHeaders
            response.headers[.accessControlMaxAge] = CORSPolicy.maxAge
            return response
        }
        var response = try await next(request, context)
        if methods.contains(request.method) { mark(&response, origin: origin) }
        return response
    }

    private func mark(_ response: inout Response, origin: String) {
        response.headers[.accessControlAllowOrigin] = origin
        response.headers[.vary] = "Origin"
        // A page reads Retry-After of a 503 (the write queue was full) to know when to try again.
        response.headers[.accessControlExposeHeaders] = "Retry-After"
    }
}
