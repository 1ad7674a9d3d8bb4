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

/// Reads `HeraldConfiguration` through swift-configuration: command-line flags win over `HERALD_*`
/// environment variables, which win over the JSON file, which wins over the defaults.
///
/// The file is flattened into keys by hand (`apps.0.keys.1.role`) because the stock JSON provider
/// cannot hold arrays of objects; every value is read as a string and converted here, so a wrong
/// type becomes one clear line instead of a silently ignored setting.
public enum ConfigurationLoader {
    /// Settings given as command-line flags.
    public struct Overrides: Sendable {
        public var host: String?
        public var port: Int?
        public var database: String?

        public init(host: String? = nil, port: Int? = nil, database: String? = nil) {
            self.host = host
            self.port = port
            self.database = database
        }
    }

    public static func load(
        file: String?, environment: [String: String] = ProcessInfo.processInfo.environment,
        overrides: Overrides = Overrides()
    ) throws(ConfigurationError) -> HeraldConfiguration {
        var fileValues: [AbsoluteConfigKey: ConfigValue] = [:]
        if let file { fileValues = try flatten(try readJSON(file)) }
        do {
            try ConfigurationSchema.file.checkEnvironment(environment)
        } catch {
            throw ConfigurationError("configuration: \(error.text)")
        }
        var flagValues: [AbsoluteConfigKey: ConfigValue] = [:]
        if let host = overrides.host { flagValues[["herald", "http", "host"]] = ConfigValue(.string(host), isSecret: false) }
        if let port = overrides.port { flagValues[["herald", "http", "port"]] = ConfigValue(.string(String(port)), isSecret: false) }
        if let database = overrides.database {
            flagValues[["herald", "database", "url"]] = ConfigValue(.string(database), isSecret: false)
        }
        let reader = ConfigReader(providers: [
            InMemoryProvider(name: "flags", values: flagValues),
            EnvironmentVariablesProvider(environmentVariables: environment.filter { $0.key.hasPrefix("HERALD_") }),
            InMemoryProvider(name: file ?? "no file", values: fileValues),
        ]).scoped(to: "herald")
        let configuration = try read(Settings(reader: reader))
        // Demo mode generates keys; a server whose file lost its apps (a typo, a bad merge) must not
        // quietly start with keys nobody configured.
        if let file, configuration.apps.isEmpty {
            throw ConfigurationError(
                "configuration file '\(file)' defines no apps (\"apps\": [{\"id\": …, \"keys\": […]}]); demo mode, with generated keys, runs only without --config"
            )
        }
        return configuration
    }

    static func read(_ settings: Settings) throws(ConfigurationError) -> HeraldConfiguration {
        var configuration = HeraldConfiguration()
        configuration.http.host = settings.string("http.host") ?? configuration.http.host
        if let port = try settings.integer("http.port") {
            guard (0...65535).contains(port) else { throw ConfigurationError("configuration: http.port \(port) is not a port number") }
            configuration.http.port = port
        }
        if let drain = try settings.number("http.drainSeconds", in: 0...300) { configuration.http.drainSeconds = drain }
        if let idle = try settings.number("http.idleTimeoutSeconds", in: 0.1...3600) { configuration.http.idleTimeoutSeconds = idle }
        if let cap = try settings.integer("http.maxConnections", in: 1...1_000_000) { configuration.http.maxConnections = cap }
        configuration.metrics = try readMetrics(settings, http: configuration.http)
        configuration.database = try readDatabase(settings) ?? configuration.database
        if let limit = try settings.integer("database.writeQueueLimit", in: 1...1_000_000) { configuration.writeQueueLimit = limit }
        if let interval = try settings.number("sweeper.intervalSeconds") {
            guard interval >= 0 else { throw ConfigurationError("configuration: sweeper.intervalSeconds must not be negative") }
            configuration.sweeper.intervalSeconds = interval
        }
        if let batch = try settings.integer("sweeper.batchSize", in: 1...100_000) { configuration.sweeper.batchSize = batch }
        if let days = try settings.number("sweeper.emptyChannelDays", in: 0...3650) { configuration.sweeper.emptyChannelDays = days }
        configuration.dispatcher = try readDispatcher(settings)
        if let enabled = settings.string("history.enabled") {
            switch enabled.lowercased() {
            case "true": configuration.dispatcher.recordHistory = true
            case "false": configuration.dispatcher.recordHistory = false
            default: throw ConfigurationError("configuration: history.enabled must be true or false, not '\(enabled)'")
            }
        }
        if let level = settings.string("log.level") {
            guard let parsed = Logger.Level(rawValue: level.lowercased()) else {
                let names = Logger.Level.allCases.map(\.rawValue).joined(separator: ", ")
                throw ConfigurationError("configuration: log.level must be one of \(names), not '\(level)'")
            }
            configuration.log.level = parsed
        }
        if let format = settings.string("log.format") {
            guard let parsed = LogSettings.Format(rawValue: format.lowercased()) else {
                throw ConfigurationError("configuration: log.format must be text or json, not '\(format)'")
            }
            configuration.log.format = parsed
        }
        if let days = try settings.integer("messages.retentionDays", in: 1...3650) { configuration.messageRetentionDays = days }
        if let days = try settings.integer("history.days", in: 1...3650) { configuration.history.days = days }
        if let count = try settings.integer("history.maxPerDevice", in: 1...100_000) { configuration.history.maxPerDevice = count }
        configuration.apps = try readApps(settings)
        _ = try AppDirectory(apps: configuration.apps)
        return configuration
    }

    /// `metrics.*`: its own listener (`port`, `host`) or the main port, and an optional bearer token
    /// (`bearerToken`, i.e. `HERALD_METRICS_BEARER_TOKEN`, or `bearerTokenFile`).
    static func readMetrics(_ settings: Settings, http: HeraldConfiguration.HTTP) throws(ConfigurationError) -> HeraldConfiguration.Metrics
    {
        var metrics = HeraldConfiguration.Metrics()
        if let enabled = settings.string("metrics.enabled") {
            switch enabled.lowercased() {
            case "true": metrics.enabled = true
            case "false": metrics.enabled = false
            default: throw ConfigurationError("configuration: metrics.enabled must be true or false, not '\(enabled)'")
            }
        }
        if let port = try settings.integer("metrics.port", in: 1...65535) {
            guard port != http.port else {
                throw ConfigurationError(
                    "configuration: metrics.port \(port) is http.port too; leave metrics.port out to serve /metrics on the main port")
            }
            metrics.port = port
        }
        if let host = settings.string("metrics.host") {
            guard metrics.port != nil else {
                throw ConfigurationError("configuration: metrics.host needs metrics.port (without it /metrics is on the main port)")
            }
            metrics.host = host
        }
        var token = settings.string("metrics.bearerToken", secret: true).flatMap { $0.isEmpty ? nil : $0 }
        if token == nil, let file = settings.string("metrics.bearerTokenFile") {
            guard let contents = FileManager.default.contents(atPath: file) else {
                throw ConfigurationError("configuration: metrics.bearerTokenFile '\(file)' cannot be read")
            }
            token = String(decoding: contents, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            guard token?.isEmpty == false else { throw ConfigurationError("configuration: metrics.bearerTokenFile '\(file)' is empty") }
        }
        if let token {
            guard token.count >= 16, token.allSatisfy({ $0.isASCII && !$0.isWhitespace }) else {
                throw ConfigurationError("configuration: metrics.bearerToken must be at least 16 characters, without spaces")
            }
        }
        metrics.bearerToken = token
        return metrics
    }

    /// `database.*`: the URL; for PostgreSQL also the pool size and a password kept out of the URL
    /// (`database.password`, i.e. `HERALD_DATABASE_PASSWORD`, or `database.passwordFile`).
    static func readDatabase(_ settings: Settings) throws(ConfigurationError) -> DatabaseURL? {
        guard let text = settings.string("database.url", secret: true) else { return nil }
        var url: DatabaseURL
        do {
            url = try DatabaseURL(parsing: text)
        } catch {
            throw ConfigurationError("configuration: \(error.description)")
        }
        guard case .postgres(var location) = url else { return url }
        if let size = try settings.integer("database.poolSize") {
            // Two at least: a sweep holds one connection for its lock and works on another.
            guard (2...1000).contains(size) else { throw ConfigurationError("configuration: database.poolSize must be between 2 and 1000") }
            location.poolSize = size
        }
        if location.password == nil {
            if let password = settings.string("database.password", secret: true), !password.isEmpty {
                location.password = password
            } else if let file = settings.string("database.passwordFile") {
                guard let contents = FileManager.default.contents(atPath: file) else {
                    throw ConfigurationError("configuration: database.passwordFile '\(file)' cannot be read")
                }
                let password = String(decoding: contents, as: UTF8.self).trimmingCharacters(in: .newlines)
                guard !password.isEmpty else { throw ConfigurationError("configuration: database.passwordFile '\(file)' is empty") }
                location.password = password
            }
        }
        url = .postgres(location)
        return url
    }

    /// `dispatcher.*`: how fan-outs page, checkpoint and retry.
    static func readDispatcher(_ settings: Settings) throws(ConfigurationError) -> DispatcherSettings {
        var dispatcher = DispatcherSettings()
        func integer(_ name: String, _ range: ClosedRange<Int>) throws(ConfigurationError) -> Int? {
            try settings.integer("dispatcher.\(name)", in: range)
        }
        func seconds(_ name: String, _ range: ClosedRange<Double>) throws(ConfigurationError) -> Double? {
            try settings.number("dispatcher.\(name)", in: range, unit: " seconds")
        }
        if let value = try integer("pageSize", 1...10_000) { dispatcher.pageSize = value }
        if let value = try integer("maxOpenPages", 1...1000) { dispatcher.maxOpenPages = value }
        if let value = try integer("maxConcurrentMessages", 1...64) { dispatcher.maxConcurrentMessages = value }
        if let value = try seconds("pollIntervalSeconds", 0.01...60) { dispatcher.pollIntervalSeconds = value }
        if let value = try seconds("leaseSeconds", 1...3600) { dispatcher.leaseSeconds = value }
        if let value = try integer("maxAttempts", 1...20) { dispatcher.retry.maxAttempts = value }
        if let value = try integer("maxSlices", 1...256) { dispatcher.maxSlices = value }
        if let value = try integer("sliceSize", 1...10_000_000) { dispatcher.sliceSize = value }
        return dispatcher
    }

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

    static func readJSON(_ path: String) throws(ConfigurationError) -> JSONValue {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw ConfigurationError("configuration file '\(path)' cannot be read: \(Self.reason(error))")
        }
        let document: JSONValue
        do {
            document = try JSONValue.parseDocument(data)
        } catch {
            throw ConfigurationError(
                error.duplicateKey == nil
                    ? "configuration file '\(path)' is not valid JSON: it breaks at \(error)" : "configuration file '\(path)': \(error)")
        }
        do {
            try ConfigurationSchema.file.check(document)
        } catch {
            throw ConfigurationError("configuration file '\(path)': \(error.text)")
        }
        return document
    }

    static func reason(_ error: any Error) -> String {
        let nsError = error as NSError
        if nsError.domain == NSCocoaErrorDomain {
            switch nsError.code {
            case NSFileReadNoSuchFileError: return "no such file"
            case NSFileReadNoPermissionError: return "permission denied"
            default: break
            }
        }
        if let underlying = nsError.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
            return String(cString: strerror(Int32(underlying.code)))
        }
        return nsError.localizedDescription
    }

    /// Turns the JSON document into `herald.`-prefixed keys with string values.
    static func flatten(_ document: JSONValue) throws(ConfigurationError) -> [AbsoluteConfigKey: ConfigValue] {
        guard case .object(let root) = document else {
            throw ConfigurationError("configuration file must hold a JSON object")
        }
        var values: [AbsoluteConfigKey: ConfigValue] = [:]
        var pending: [([String], JSONValue)] = root.filter { !ConfigurationSchema.isComment($0.key) }.map {
            (["herald", $0.key], $0.value)
        }
        while let (path, value) = pending.popLast() {
            let text: String
            switch value {
            case .object(let object):
                pending.append(contentsOf: object.filter { !ConfigurationSchema.isComment($0.key) }.map { (path + [$0.key], $0.value) })
                continue
            case .array(let array):
                pending.append(contentsOf: array.enumerated().map { (path + [String($0.offset)], $0.element) })
                continue
            case .null: continue
            case .string(let string): text = string
            case .integer(let number): text = String(number)
            case .number(let number): text = String(number)
            case .bool(let flag): text = String(flag)
            }
            values[AbsoluteConfigKey(path)] = ConfigValue(.string(text), isSecret: path.last == "key")
        }
        return values
    }
}

/// Typed reads over string-valued settings, with errors that name the setting.
struct Settings {
    let reader: ConfigReader

    func string(_ key: String, secret: Bool = false) -> String? {
        reader.string(forKey: ConfigKey(key), isSecret: secret)
    }

    func integer(_ key: String) throws(ConfigurationError) -> Int? {
        guard let text = string(key) else { return nil }
        guard let value = Int(text.trimmingCharacters(in: .whitespaces)) else {
            throw ConfigurationError("configuration: \(key) must be a whole number, not '\(text)'")
        }
        return value
    }

    /// A whole number that must lie in `range`; the error names the setting and the range.
    func integer(_ key: String, in range: ClosedRange<Int>) throws(ConfigurationError) -> Int? {
        guard let value = try integer(key) else { return nil }
        guard range.contains(value) else {
            throw ConfigurationError("configuration: \(key) must be between \(range.lowerBound) and \(range.upperBound)")
        }
        return value
    }

    /// A number that must lie in `range`; the error names the setting, the range and its `unit`.
    func number(_ key: String, in range: ClosedRange<Double>, unit: String = "") throws(ConfigurationError) -> Double? {
        guard let value = try number(key) else { return nil }
        guard range.contains(value) else {
            throw ConfigurationError("configuration: \(key) must be between \(range.lowerBound) and \(range.upperBound)\(unit)")
        }
        return value
    }

    func number(_ key: String) throws(ConfigurationError) -> Double? {
        guard let text = string(key) else { return nil }
        guard let value = Double(text.trimmingCharacters(in: .whitespaces)), value.isFinite else {
            throw ConfigurationError("configuration: \(key) must be a number, not '\(text)'")
        }
        return value
    }
}
