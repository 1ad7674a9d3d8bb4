import Foundation
import HeraldCore
import Hummingbird
import NIOCore

/// Who called an app route (`/{appId}/{apiKey}/…`): the app whose key had the route's role, as
/// `AppAuthMiddleware` (or, for the routes that must first tell which route they are, `AppScope.authorize`)
/// found it.
struct AppCaller: Sendable, Equatable {
    let appId: String
}

/// Herald's request context: Hummingbird's core, and the authorised caller of an app route.
struct HeraldRequestContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    var caller: AppCaller?
    /// A console page's signed-in session and its form (set by `ConsoleSessionMiddleware`).
    var console: ConsoleRequest?
    /// The connection's peer, for the console's login throttle.
    let remoteAddress: SocketAddress?

    init(source: Source) {
        coreContext = .init(source: source)
        caller = nil
        remoteAddress = source.channel.remoteAddress
    }

    /// The app whose key authorised this request. A handler reached without authorisation is a wiring
    /// mistake (a route outside its role's group): answered 500, never served unchecked.
    func appId() throws(HeraldFault) -> String {
        guard let caller else { throw .internalError }
        return caller.appId
    }
}

/// Checks app id, key and role (2002, then 5007 or the route's own `denied` fault) once for every route
/// of a group, before the route reads anything, and records the caller in the context.
struct AppAuthMiddleware: RouterMiddleware {
    typealias Context = HeraldRequestContext
    let apps: AppDirectory
    let role: APIKeyRole
    let denied: HeraldFault?

    init(apps: AppDirectory, requires role: APIKeyRole, denied: HeraldFault? = nil) {
        self.apps = apps
        self.role = role
        self.denied = denied
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        context.caller = try AppScope.authorize(context, apps: apps, requires: role, denied: denied)
        return try await next(request, context)
    }
}

/// Path parameters of app routes, and the one authorisation both the middleware and the shape-routed
/// `{target}` routes use.
enum AppScope {
    /// Checks app id, key and role; 2002 or 5007 (or `denied`) otherwise.
    static func authorize(
        _ context: some RequestContext, apps: AppDirectory, requires role: APIKeyRole, denied: HeraldFault? = nil
    ) throws(HeraldFault) -> AppCaller {
        let appId = try parameter("appId", context)
        let apiKey = try parameter("apiKey", context)
        let app = try apps.authorize(appId: appId, apiKey: apiKey, requires: role, denied: denied)
        return AppCaller(appId: app)
    }

    /// A path parameter, percent-decoded.
    static func parameter(_ name: String, _ context: some RequestContext) throws(HeraldFault) -> String {
        guard let raw = context.parameters.get(name) else { throw .missingParameter(name) }
        guard let decoded = raw.removingPercentEncoding else { throw .invalidParameter(name, "bad percent-encoding") }
        return decoded
    }
}

extension RouterMethods where Context == HeraldRequestContext {
    /// The routes added to the returned group need a key of at least `role` in the app (checked once, by
    /// `AppAuthMiddleware`).
    func requiring(_ role: APIKeyRole, apps: AppDirectory, denied: HeraldFault? = nil) -> RouterGroup<Context> {
        group().add(middleware: AppAuthMiddleware(apps: apps, requires: role, denied: denied))
    }
}
