import Configuration
import Foundation
import HeraldAPNs
import HeraldCore
import HeraldDeviceCheck
import HeraldDispatch
import HeraldFCM
import HeraldStore
import HeraldWebPush
import HeraldWebhooks
import Logging

/// The `apps` list and each app's blocks (`apns`, `fcm`, `webPush`, `deviceCheck`, `webhook`, `cors`).
extension ConfigurationLoader {
    static func readApps(_ settings: ConfigurationValues) throws(ConfigurationError) -> [AppConfiguration] {
        var apps: [AppConfiguration] = []
        while let id = settings.string("apps.\(apps.count).id") {
            let index = apps.count
            var keys: [APIKey] = []
            while let key = settings.string("apps.\(index).keys.\(keys.count).key", secret: true) {
                let rolePath = "apps.\(index).keys.\(keys.count).role"
                guard let roleName = settings.string(rolePath) else {
                    throw ConfigurationError("configuration: app '\(id)' key #\(keys.count + 1) has no role (\(rolePath))")
                }
                guard let role = APIKeyRole(rawValue: roleName) else {
                    throw ConfigurationError(
                        "configuration: app '\(id)' key #\(keys.count + 1) has unknown role '\(roleName)' (expected client, server or admin)"
                    )
                }
                // deploy/herald.json's placeholders are public: serving with them would let anyone in.
                guard !key.hasPrefix("replace-with") else {
                    throw ConfigurationError(
                        "configuration: app '\(id)' key #\(keys.count + 1) is still the example's placeholder; `herald keys --generate` prints real ones"
                    )
                }
                keys.append(APIKey(key: key, role: role))
            }
            var app = AppConfiguration(
                id: id, keys: keys, apns: try read(APNsAppConfiguration.self, settings, app: index, id: id),
                fcm: try read(FCMAppConfiguration.self, settings, app: index, id: id),
                webPush: try read(WebPushAppConfiguration.self, settings, app: index, id: id),
                deviceCheck: try read(DeviceCheckAppConfiguration.self, settings, app: index, id: id),
                webhook: try readWebhook(settings, prefix: "apps.\(index).webhook", app: id))
            let cors = SettingValues(ConfigurationDeclarations.cors, path: "apps.\(index).cors") { settings.string($0, secret: $1) }
            for origin in cors.list("allowedOrigins") {
                guard let normalized = CORSPolicy.normalizedOrigin(origin) else {
                    throw ConfigurationError(
                        "configuration: app '\(id)' cors.allowedOrigins: '\(origin)' is not an origin "
                            + "(scheme, host and optional port, as https://shop.example.com or http://localhost:3000; or *)")
                }
                app.allowedOrigins.append(normalized)
            }
            apps.append(app)
        }
        return apps
    }

    /// An app's `webhook` block: `url` and `secret` (or `secretFile`) both, or neither.
    static func readWebhook(_ settings: ConfigurationValues, prefix: String, app: String) throws(ConfigurationError) -> WebhookTarget? {
        let values = SettingValues(ConfigurationDeclarations.webhook, path: prefix) { settings.string($0, secret: $1) }
        do throws(SettingError) {
            var secret = values.given("secret")
            if secret == nil, let file = try values.string("secretFile") { secret = try Self.secret(in: file, key: "secretFile") }
            let caFile = try values.string("caFile")
            let timeout = values.given("timeoutSeconds") != nil ? try values.integer("timeoutSeconds") : nil
            guard let url = values.given("url") else {
                if secret != nil || caFile != nil || timeout != nil { throw SettingError("url is missing (\(prefix).url)") }
                return nil
            }
            guard let secret else { throw SettingError("secret is missing (\(prefix).secret or \(prefix).secretFile)") }
            if let problem = WebhookTarget.problem(url: url, secret: secret) { throw SettingError(problem) }
            return WebhookTarget(
                url: url, secret: secret, caFile: caFile,
                timeoutMilliseconds: (timeout ?? WebhookTarget.defaultTimeoutMilliseconds / 1000) * 1000)
        } catch {
            throw ConfigurationError("configuration: app '\(app)' webhook: \(error.message)")
        }
    }

    /// The app blocks that modules own, each read from its own declaration. A new push service adds
    /// its block here (and a field on `AppConfiguration`).
    public static let appBlocks: [any ConfigurationBlock.Type] = [
        APNsAppConfiguration.self, FCMAppConfiguration.self, WebPushAppConfiguration.self, DeviceCheckAppConfiguration.self,
    ]

    /// App `index`'s block of type `Block`, or nil when none of its settings is given; an error names
    /// the app and the block (`configuration: app 'shop' apns: topic … is required`).
    static func read<Block: ConfigurationBlock>(
        _ type: Block.Type, _ settings: ConfigurationValues, app index: Int, id: String
    ) throws(ConfigurationError) -> Block? {
        let values = SettingValues(Block.settings, path: "apps.\(index).\(Block.key)") { key, secret in
            settings.string(key, secret: secret)
        }
        guard !values.isEmpty else { return nil }
        do {
            return try Block(reading: values)
        } catch {
            throw ConfigurationError("configuration: app '\(id)' \(Block.key): \(error.message)")
        }
    }
}
