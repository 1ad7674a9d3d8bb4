import Foundation
import HTTPTypes
import HeraldCore
import Hummingbird

/// What the Backendless SDKs ask at `initApp`: `GET …/info` (JS and Java read `rtURL` from it) and
/// `GET …/rt/lookup` (Swift reads the address as a JSON string). Both name this Herald as the
/// real-time server, which serves socket.io on its own HTTP port. Any key of the app may ask.
struct AppInfoRoutes {
    let apps: AppDirectory
    /// `http.publicURL`; nil: each request says where it was sent (`rtURL(for:)`).
    let publicURL: PublicURL?
    /// `http.host:http.port`, for a request without a usable `Host` header (HTTP/1.0).
    let listening: String

    init(apps: AppDirectory, http: HeraldConfiguration.HTTP) {
        self.apps = apps
        publicURL = http.publicURL
        let host = http.host.contains(":") ? "[\(http.host)]" : http.host
        listening = http.port == 0 ? host : "\(host):\(http.port)"
    }

    func add(to router: Router<HeraldRequestContext>) {
        let app = router.requiring(.client, apps: apps)
        app.get("/{appId}/{apiKey}/info") { request, context in
            let appId = try context.appId()
            return JSONBody.response(
                .object([
                    "rtURL": .string(rtURL(for: request).description), "appId": .string(appId),
                    "apiKey": .string(try AppScope.parameter("apiKey", context)), "loggers": .array([]),
                ]))
        }
        app.get("/{appId}/{apiKey}/rt/lookup") { request, _ in JSONBody.response(.string(rtURL(for: request).description)) }
    }

    /// The configured public URL; else the first `X-Forwarded-Proto` (`http` or `https`, else `http`) and
    /// the first `X-Forwarded-Host`, else the `Host` header, else where Herald listens. A forwarded or
    /// `Host` value that is not a plain `host[:port]` is passed over, so a client cannot make the answer
    /// point anywhere with a path or a query in it.
    func rtURL(for request: Request) -> PublicURL {
        if let publicURL { return publicURL }
        let scheme = Self.first(request, Self.forwardedProto).flatMap { PublicURL.Scheme(rawValue: $0.lowercased()) } ?? .http
        let candidates = [Self.first(request, Self.forwardedHost), request.head.authority, listening]
        for candidate in candidates.compactMap({ $0 }) {
            if let url = PublicURL(scheme: scheme, authority: candidate) { return url }
        }
        // Only when http.host is not a host name either; a literal that is an authority.
        return PublicURL(scheme: scheme, authority: "localhost")!
    }

    static let forwardedProto = HTTPField.Name("X-Forwarded-Proto")!
    static let forwardedHost = HTTPField.Name("X-Forwarded-Host")!

    /// A header's first value: of its first line, the part before any comma (proxies append theirs).
    static func first(_ request: Request, _ name: HTTPField.Name) -> String? {
        guard let line = request.headers[values: name].first else { return nil }
        let value = line.split(separator: ",", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        return trimmed.isEmpty ? nil : trimmed
    }
}
