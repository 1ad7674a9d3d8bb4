import Foundation
import HeraldCore
import Hummingbird

/// The `/{appId}/{apiKey}/…` prefix of every app route, checked before anything else is read.
struct AppScope {
    let appId: String

    /// Checks app id, key and role; 2002 or 5007 otherwise.
    init(_ context: some RequestContext, apps: AppDirectory, requires role: APIKeyRole, denied: HeraldFault? = nil) throws {
        let appId = try Self.parameter("appId", context)
        let apiKey = try Self.parameter("apiKey", context)
        self.appId = try apps.authorize(appId: appId, apiKey: apiKey, requires: role, denied: denied)
    }

    /// A path parameter, percent-decoded.
    static func parameter(_ name: String, _ context: some RequestContext) throws(HeraldFault) -> String {
        guard let raw = context.parameters.get(name) else { throw .missingParameter(name) }
        guard let decoded = raw.removingPercentEncoding else { throw .invalidParameter(name, "bad percent-encoding") }
        return decoded
    }
}
