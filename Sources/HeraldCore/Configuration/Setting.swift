import Foundation

/// One setting of a configuration block, declared once beside the type it configures: its key, what it
/// holds (type and range, or the choices), its default and whether it is a secret. From the block's
/// declarations the loader reads and checks values (`SettingValues`), the configuration's unknown-key
/// check and its `HERALD_*` names accept the keys, and a test (`ConfigurationTableTests`) holds
/// docs/configuration.md's table to the keys and defaults. The app blocks that modules own (`apns`,
/// `fcm`, `deviceCheck`) are declared this way; Herald's own top-level blocks are not yet.
public struct Setting: Sendable {
    public enum Kind: Sendable, Equatable {
        /// Any text.
        case text
        /// One of these words.
        case choice([String])
        /// A whole number in the range.
        case integer(ClosedRange<Int>)
        /// A number in the range, in `unit` (for the error: " seconds").
        case number(ClosedRange<Double>, unit: String)
        /// `true` or `false`.
        case boolean
        /// A path to a file Herald must be able to read.
        case file
        /// An `http://` or `https://` URL.
        case url
        /// A list of texts (`allowedOrigins: [...]`; `_0`, `_1`, … in the environment).
        case list
    }

    public let key: String
    public let kind: Kind
    /// The value when the setting is not given, as the file would say it; nil: none.
    public let defaultValue: String?
    /// Read with swift-configuration's secret flag, so it never reaches a log.
    public let secret: Bool

    public init(_ key: String, _ kind: Kind = .text, default defaultValue: String? = nil, secret: Bool = false) {
        self.key = key
        self.kind = kind
        self.defaultValue = defaultValue
        self.secret = secret
    }

    /// A whole number with its default.
    public static func integer(_ key: String, _ range: ClosedRange<Int>, default value: Int) -> Setting {
        Setting(key, .integer(range), default: String(value))
    }
}

/// A setting's value that its declaration refuses; the message names the key and says what it must be.
public struct SettingError: Error, Sendable, CustomStringConvertible {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// A block's values as given (by the file, the environment or a flag), read through its declarations:
/// each typed read checks the value against its `Setting` and falls back to the declared default.
/// Errors name the key as the block knows it (`connections must be between 1 and 64`); the loader
/// adds where the block is.
public struct SettingValues {
    public let settings: [String: Setting]
    /// The block's path (`apps.0.apns`), for messages that point at a key.
    public let path: String
    private let lookup: (_ key: String, _ secret: Bool) -> String?

    public init(_ settings: [Setting], path: String, lookup: @escaping (_ key: String, _ secret: Bool) -> String?) {
        self.settings = Dictionary(uniqueKeysWithValues: settings.map { ($0.key, $0) })
        self.path = path
        self.lookup = lookup
    }

    private func setting(_ key: String) -> Setting {
        guard let setting = settings[key] else { preconditionFailure("setting '\(key)' is read but not declared in \(path)") }
        return setting
    }

    /// The value as given (empty counts as not given), without its default.
    public func given(_ key: String) -> String? {
        let setting = setting(key)
        return lookup("\(path).\(key)", setting.secret).flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Whether any of the block's settings is given: a block with none is not there.
    public var isEmpty: Bool { settings.keys.allSatisfy { given($0) == nil } }

    /// A text, choice, file or URL setting, checked against its kind; the default when not given.
    public func string(_ key: String) throws(SettingError) -> String? {
        let setting = setting(key)
        guard let value = given(key) else { return setting.defaultValue }
        switch setting.kind {
        case .choice(let words):
            // Any case, answered as declared.
            guard let word = words.first(where: { $0.lowercased() == value.lowercased() }) else {
                throw SettingError("\(key) must be one of \(Self.list(words)), not '\(value)'")
            }
            return word
        case .url where !(value.hasPrefix("https://") || value.hasPrefix("http://")):
            throw SettingError("\(key) must be an http(s) URL")
        case .file where !FileManager.default.isReadableFile(atPath: value):
            throw SettingError("\(key) '\(value)' cannot be read")
        default: return value
        }
    }

    /// A list setting's texts in order (empty when not given).
    public func list(_ key: String) -> [String] {
        let setting = setting(key)
        var items: [String] = []
        while let item = lookup("\(path).\(key).\(items.count)", setting.secret) { items.append(item) }
        return items
    }

    public func integer(_ key: String) throws(SettingError) -> Int? {
        let setting = setting(key)
        guard case .integer(let range) = setting.kind else { preconditionFailure("\(path).\(key) is not declared a whole number") }
        guard let text = given(key) else { return setting.defaultValue.flatMap { Int($0) } }
        guard let value = Int(text.trimmingCharacters(in: .whitespaces)) else {
            throw SettingError("\(key) must be a whole number, not '\(text)'")
        }
        guard range.contains(value) else { throw SettingError("\(key) must be between \(range.lowerBound) and \(range.upperBound)") }
        return value
    }

    public func number(_ key: String) throws(SettingError) -> Double? {
        let setting = setting(key)
        guard case .number(let range, let unit) = setting.kind else { preconditionFailure("\(path).\(key) is not declared a number") }
        guard let text = given(key) else { return setting.defaultValue.flatMap { Double($0) } }
        guard let value = Double(text.trimmingCharacters(in: .whitespaces)), value.isFinite else {
            throw SettingError("\(key) must be a number, not '\(text)'")
        }
        guard range.contains(value) else {
            throw SettingError("\(key) must be between \(range.lowerBound.plainText) and \(range.upperBound.plainText)\(unit)")
        }
        return value
    }

    public func boolean(_ key: String) throws(SettingError) -> Bool? {
        let setting = setting(key)
        guard let text = given(key) ?? setting.defaultValue else { return nil }
        switch text.lowercased() {
        case "true": return true
        case "false": return false
        default: throw SettingError("\(key) must be true or false, not '\(text)'")
        }
    }

    static func list(_ words: [String]) -> String {
        words.count < 2 ? words.joined() : words.dropLast().joined(separator: ", ") + " or " + words.last!
    }

}

/// How wide a client multiplexes: the ranges and defaults of its `connections` and
/// `streamsPerConnection`, stated once per client and read by its configuration block's declaration,
/// its defaults and its own check.
public struct ConnectionWidth: Sendable {
    public let connections: ClosedRange<Int>
    public let defaultConnections: Int
    public let streams: ClosedRange<Int>
    public let defaultStreams: Int

    public init(connections: ClosedRange<Int>, defaultConnections: Int, streams: ClosedRange<Int>, defaultStreams: Int) {
        self.connections = connections
        self.defaultConnections = defaultConnections
        self.streams = streams
        self.defaultStreams = defaultStreams
    }

    /// The two settings as a configuration block declares them.
    public var settings: [Setting] {
        [
            .integer("connections", connections, default: defaultConnections),
            .integer("streamsPerConnection", streams, default: defaultStreams),
        ]
    }

    /// Why these values are refused (`service` names the client), or nil.
    public func problem(connections count: Int, streams perConnection: Int, service: String) -> String? {
        if !connections.contains(count) {
            return "\(service) connections must be between \(connections.lowerBound) and \(connections.upperBound), not \(count)"
        }
        if !streams.contains(perConnection) {
            return "\(service) streams per connection must be between \(streams.lowerBound) and \(streams.upperBound), not \(perConnection)"
        }
        return nil
    }
}

/// How long a push service's connection may sit idle and still be reused (`idleReconnectSeconds`, shared by
/// the push providers' blocks): one idle longer is closed and the next send opens a new one. It stands in for
/// the HTTP/2 PING that libcurl cannot send on an idle multiplexed connection (BENCHMARKS.md section 22): a
/// path that a NAT or a load balancer dropped while the connection idled is never tried.
public enum ConnectionIdle {
    public static let range = 1...86_400
    /// An hour: curl's own default (118 s) would reconnect between most bursts, which APNs dislikes.
    public static let defaultSeconds = 3600
    public static let setting = Setting.integer("idleReconnectSeconds", range, default: defaultSeconds)
}

/// A block of an app's configuration that a module owns (`apns`, `fcm`, `deviceCheck`): its key under
/// the app, its settings, and how it is read from them. Herald's loader and its configuration schema
/// take every block from the list of registered ones (`ConfigurationLoader.appBlocks`).
public protocol ConfigurationBlock: Sendable {
    static var key: String { get }
    static var settings: [Setting] { get }
    init(reading values: SettingValues) throws(SettingError)
}
