import Configuration
import Foundation
import HeraldAPNs
import HeraldCore
import HeraldDeviceCheck
import HeraldDispatch
import HeraldFCM
import HeraldStore
import HeraldWebhooks
import Logging

/// The `apps` list and each app's blocks (`apns`, `fcm`, `deviceCheck`, `webhook`, `cors`).
extension ConfigurationLoader {
    static func readApps(_ settings: Settings) throws(ConfigurationError) -> [AppConfiguration] {
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
                id: id, keys: keys, apns: try readAPNs(settings, prefix: "apps.\(index).apns", app: id),
                fcm: try readFCM(settings, prefix: "apps.\(index).fcm", app: id),
                deviceCheck: try readDeviceCheck(settings, prefix: "apps.\(index).deviceCheck", app: id),
                webhook: try readWebhook(settings, prefix: "apps.\(index).webhook", app: id))
            while let origin = settings.string("apps.\(index).cors.allowedOrigins.\(app.allowedOrigins.count)") {
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
    static func readWebhook(_ settings: Settings, prefix: String, app: String) throws(ConfigurationError) -> WebhookTarget? {
        func fail(_ message: String) -> ConfigurationError { ConfigurationError("configuration: app '\(app)' webhook: \(message)") }
        let url = settings.string("\(prefix).url").flatMap { $0.isEmpty ? nil : $0 }
        var secret = settings.string("\(prefix).secret", secret: true).flatMap { $0.isEmpty ? nil : $0 }
        if secret == nil, let file = settings.string("\(prefix).secretFile") {
            guard let contents = FileManager.default.contents(atPath: file) else { throw fail("secretFile '\(file)' cannot be read") }
            secret = String(decoding: contents, as: UTF8.self).trimmingCharacters(in: .newlines)
        }
        let caFile = settings.string("\(prefix).caFile").flatMap { $0.isEmpty ? nil : $0 }
        let timeout = try settings.integer("\(prefix).timeoutSeconds")
        guard let url else {
            if secret != nil || caFile != nil || timeout != nil { throw fail("url is missing (\(prefix).url)") }
            return nil
        }
        guard let secret else { throw fail("secret is missing (\(prefix).secret or \(prefix).secretFile)") }
        if let problem = WebhookTarget.problem(url: url, secret: secret) { throw fail(problem) }
        if let caFile, !FileManager.default.isReadableFile(atPath: caFile) { throw fail("caFile '\(caFile)' cannot be read") }
        if let timeout, !(1...300).contains(timeout) { throw fail("timeoutSeconds must be between 1 and 300") }
        return WebhookTarget(url: url, secret: secret, caFile: caFile, timeoutMilliseconds: (timeout ?? 10) * 1000)
    }

    /// An app's `apns` block, checked as far as it can be without a network: the values, and
    /// the key or certificate files (a .p8 is parsed).
    static func readAPNs(_ settings: Settings, prefix: String, app: String) throws(ConfigurationError) -> APNsAppConfiguration? {
        func value(_ name: String, secret: Bool = false) -> String? {
            settings.string("\(prefix).\(name)", secret: secret).flatMap { $0.isEmpty ? nil : $0 }
        }
        guard APNsAppConfiguration.settingNames.contains(where: { value($0) != nil }) else { return nil }
        func fail(_ message: String) -> ConfigurationError {
            ConfigurationError("configuration: app '\(app)' apns: \(message)")
        }
        let environment: APNsAppConfiguration.Environment
        switch value("environment") ?? "production" {
        case "production": environment = .production
        case "development": environment = .development
        case "custom":
            guard let url = value("url") else { throw fail("environment 'custom' needs a url (\(prefix).url)") }
            environment = .custom(url: url, caFile: value("caFile"))
        case let other: throw fail("unknown environment '\(other)' (expected production, development or custom)")
        }
        guard let topic = value("topic") else { throw fail("topic (the app's bundle id) is required (\(prefix).topic)") }
        let authentication: APNsAppConfiguration.Authentication
        if let certificate = value("certificateFile") {
            authentication = .certificate(
                certificateFile: certificate, privateKeyFile: value("privateKeyFile"),
                passphrase: value("passphrase", secret: true))
        } else {
            guard let team = value("teamId"), let key = value("keyId"), let file = value("privateKeyFile") else {
                throw fail("token auth needs teamId, keyId and privateKeyFile (or give certificateFile)")
            }
            authentication = .token(teamID: team, keyID: key, privateKeyFile: file)
        }
        let connections = try settings.integer("\(prefix).connections") ?? 2
        guard (1...64).contains(connections) else { throw fail("connections must be between 1 and 64") }
        let streams = try settings.integer("\(prefix).streamsPerConnection") ?? 500
        guard (1...1000).contains(streams) else { throw fail("streamsPerConnection must be between 1 and 1000") }
        let configuration = APNsAppConfiguration(
            environment: environment, topic: topic, authentication: authentication,
            connections: connections, streamsPerConnection: streams)
        do {
            _ = try configuration.clientConfiguration()
        } catch {
            throw fail(error.description)
        }
        try checkReadable(configuration, fail: fail)
        return configuration
    }

    /// An app's `fcm` block, checked as far as it can be without a network: the values, the service-account
    /// file (parsed, its key an RSA private key) and the CA file.
    static func readFCM(_ settings: Settings, prefix: String, app: String) throws(ConfigurationError) -> FCMAppConfiguration? {
        func value(_ name: String) -> String? { settings.string("\(prefix).\(name)").flatMap { $0.isEmpty ? nil : $0 } }
        guard FCMAppConfiguration.settingNames.contains(where: { value($0) != nil }) else { return nil }
        func fail(_ message: String) -> ConfigurationError { ConfigurationError("configuration: app '\(app)' fcm: \(message)") }
        guard let file = value("serviceAccountFile") else {
            throw fail("serviceAccountFile (the service-account JSON key from Google) is required (\(prefix).serviceAccountFile)")
        }
        let url = value("url") ?? FCMClientConfiguration.defaultBaseURL
        guard url.hasPrefix("https://") || url.hasPrefix("http://") else { throw fail("url must be an http(s) URL") }
        let caFile = value("caFile")
        if let caFile, !FileManager.default.isReadableFile(atPath: caFile) { throw fail("caFile '\(caFile)' cannot be read") }
        let connections = try settings.integer("\(prefix).connections") ?? 4
        guard (1...64).contains(connections) else { throw fail("connections must be between 1 and 64") }
        let streams = try settings.integer("\(prefix).streamsPerConnection") ?? 100
        guard (1...1000).contains(streams) else { throw fail("streamsPerConnection must be between 1 and 1000") }
        let configuration = FCMAppConfiguration(
            serviceAccountFile: file, url: url, caFile: caFile, connections: connections, streamsPerConnection: streams)
        do {
            _ = try configuration.clientConfiguration()
        } catch {
            throw fail(error.description)
        }
        return configuration
    }

    /// An app's `deviceCheck` block, checked as far as it can be without a network: the values, the key
    /// file (parsed) and the CA file.
    static func readDeviceCheck(_ settings: Settings, prefix: String, app: String) throws(ConfigurationError)
        -> DeviceCheckAppConfiguration?
    {
        func value(_ name: String) -> String? { settings.string("\(prefix).\(name)").flatMap { $0.isEmpty ? nil : $0 } }
        guard DeviceCheckAppConfiguration.settingNames.contains(where: { value($0) != nil }) else { return nil }
        func fail(_ message: String) -> ConfigurationError {
            ConfigurationError("configuration: app '\(app)' deviceCheck: \(message)")
        }
        let environment: DeviceCheckEnvironment
        switch value("environment") ?? "production" {
        case "production": environment = .production
        case "development": environment = .development
        case "custom":
            guard let url = value("url") else { throw fail("environment 'custom' needs a url (\(prefix).url)") }
            guard url.hasPrefix("https://") || url.hasPrefix("http://") else { throw fail("url must be an http(s) URL") }
            let caFile = value("caFile")
            if let caFile, !FileManager.default.isReadableFile(atPath: caFile) { throw fail("caFile '\(caFile)' cannot be read") }
            environment = .custom(url: url, caFile: caFile)
        case let other: throw fail("unknown environment '\(other)' (expected production, development or custom)")
        }
        guard let team = value("teamId"), let key = value("keyId"), let file = value("privateKeyFile") else {
            throw fail("teamId, keyId and privateKeyFile (a .p8 key with the DeviceCheck capability) are required")
        }
        let connections = try settings.integer("\(prefix).connections") ?? 1
        guard (1...16).contains(connections) else { throw fail("connections must be between 1 and 16") }
        let streams = try settings.integer("\(prefix).streamsPerConnection") ?? 100
        guard (1...1000).contains(streams) else { throw fail("streamsPerConnection must be between 1 and 1000") }
        let configuration = DeviceCheckAppConfiguration(
            environment: environment, teamID: team, keyID: key, privateKeyFile: file, connections: connections,
            streamsPerConnection: streams)
        do {
            _ = try configuration.clientConfiguration()
        } catch {
            throw fail(error.description)
        }
        return configuration
    }

    private static func checkReadable(_ configuration: APNsAppConfiguration, fail: (String) -> ConfigurationError)
        throws(ConfigurationError)
    {
        var files: [(String, String)] = []
        if case .custom(_, let caFile?) = configuration.environment { files.append(("caFile", caFile)) }
        if case .certificate(let certificate, let key, _) = configuration.authentication {
            files.append(("certificateFile", certificate))
            if let key { files.append(("privateKeyFile", key)) }
        }
        for (name, path) in files where !FileManager.default.isReadableFile(atPath: path) {
            throw fail("\(name) '\(path)' cannot be read")
        }
    }
}
