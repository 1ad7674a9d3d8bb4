import Crypto
import Foundation
import HeraldAPNs
import HeraldCore

/// Which app ids and API keys exist and what role each key has; every app route asks it first.
public struct AppDirectory: Sendable {
    private let keysByApp: [String: [String: APIKeyRole]]
    /// Each app's admin keys as SHA-256 hex: a console session names the key it was opened with so.
    private let adminKeyHashes: [String: Set<String>]
    /// Each app's additions to the checks of its devices' tokens (`AppConfiguration.tokenRules`).
    private let tokenRules: [String: DeviceToken.Rules]
    /// Each app's APNs block, for what depends on how it authenticates (Live Activities need token auth).
    private let apns: [String: APNsAppConfiguration]

    /// The first path segments Herald serves outside any app: no app may take one as its id.
    public static let reserved: Set<String> = ["console", "health", "ready", "metrics", "openapi.json"]

    /// Builds the directory, rejecting duplicate and reserved app ids and an app listed without keys.
    public init(apps: [AppConfiguration]) throws(ConfigurationError) {
        var keysByApp: [String: [String: APIKeyRole]] = [:]
        for app in apps {
            if app.id.isEmpty { throw ConfigurationError("configuration: an app has an empty id") }
            if keysByApp[app.id] != nil { throw ConfigurationError("configuration: duplicate app id '\(app.id)'") }
            if Self.reserved.contains(app.id.lowercased()) {
                throw ConfigurationError(
                    "configuration: app id '\(app.id)' is reserved: Herald serves /\(app.id.lowercased()) itself "
                        + "(reserved: \(Self.reserved.sorted().joined(separator: ", ")))")
            }
            if app.keys.isEmpty { throw ConfigurationError("configuration: app '\(app.id)' has no keys") }
            var keys: [String: APIKeyRole] = [:]
            for key in app.keys {
                if key.key.isEmpty { throw ConfigurationError("configuration: app '\(app.id)' has an empty key") }
                if keys[key.key] != nil { throw ConfigurationError("configuration: app '\(app.id)' lists a key twice") }
                keys[key.key] = key.role
            }
            keysByApp[app.id] = keys
        }
        self.keysByApp = keysByApp
        tokenRules = Dictionary(apps.map { ($0.id, $0.tokenRules) }, uniquingKeysWith: { first, _ in first })
        apns = Dictionary(apps.compactMap { app in app.apns.map { (app.id, $0) } }, uniquingKeysWith: { first, _ in first })
        adminKeyHashes = keysByApp.mapValues { keys in Set(keys.filter { $0.value == .admin }.keys.map(Self.hash)) }
    }

    /// A key's SHA-256 as hex (how a console session names its key).
    static func hash(_ key: String) -> String {
        SHA256.hash(data: Data(key.utf8)).map { String(format: "%02x", $0) }.joined()
    }

    /// How `app`'s devices' tokens are checked at registration.
    func tokenRules(app: String) -> DeviceToken.Rules { tokenRules[app] ?? DeviceToken.Rules() }

    /// `app`'s APNs block, if it has one.
    func apns(app: String) -> APNsAppConfiguration? { apns[app] }

    /// Whether `app` still has an admin key with this hash.
    func hasAdminKey(app: String, hash: String) -> Bool { adminKeyHashes[app]?.contains(hash) == true }

    /// The app id as configured, when an app has it (any canonically equivalent spelling); nil otherwise.
    func canonicalAppId(_ appId: String) -> String? {
        keysByApp.index(forKey: appId).map { keysByApp[$0].key }
    }

    /// Checks the app id and key, then the key's role. 2002 for an unknown app or key, 5007 for too small a role.
    /// Returns the app id as configured: `String` lookup matches canonically equivalent spellings, and the
    /// store must always see the one spelling.
    @discardableResult
    public func authorize(
        appId: String, apiKey: String, requires role: APIKeyRole,
        denied: HeraldFault? = nil
    ) throws(HeraldFault) -> String {
        guard let index = keysByApp.index(forKey: appId), let granted = keysByApp[index].value[apiKey] else {
            throw .unknownApplication
        }
        guard granted >= role else { throw denied ?? .permissionDenied(required: role) }
        return keysByApp[index].key
    }
}
