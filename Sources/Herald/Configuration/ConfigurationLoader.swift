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
        if let value = try settings.integer("dispatcher.maxAttempts", in: 1...20) { configuration.retries.apns.maxAttempts = value }
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

    /// `dispatcher.*` but `maxAttempts` (the providers' retry policies): how fan-outs page and checkpoint.
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
        if let value = try integer("maxSlices", 1...256) { dispatcher.maxSlices = value }
        if let value = try integer("sliceSize", 1...10_000_000) { dispatcher.sliceSize = value }
        return dispatcher
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
