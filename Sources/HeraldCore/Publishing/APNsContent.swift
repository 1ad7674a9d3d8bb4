import Foundation

/// What APNs receives for one message, built once per message from `message` and `headers` by
/// the contract's mapping: the payload bytes and the APNs request headers.
public struct APNsContent: Sendable, Hashable, Codable {
    /// The JSON payload (keys sorted, so equal messages give equal bytes).
    public var payload: [UInt8]
    /// `apns-push-type`: alert, or background (priority 5) for a silent push, unless a header says.
    public var pushType: String
    /// `apns-priority` (1, 5 or 10); nil leaves APNs's default.
    public var priority: Int?
    /// `apns-expiration`, epoch seconds (0: try once).
    public var expiration: Int64?
    /// `apns-collapse-id`, at most 64 bytes.
    public var collapseId: String?

    public init(payload: [UInt8], pushType: String, priority: Int?, expiration: Int64?, collapseId: String?) {
        self.payload = payload
        self.pushType = pushType
        self.priority = priority
        self.expiration = expiration
        self.collapseId = collapseId
    }

    private enum CodingKeys: String, CodingKey {
        case payload, pushType, priority, expiration, collapseId
    }

    /// Stored as JSON with the payload as its text (it is JSON itself), not as an array of byte values.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        payload = Array(try container.decode(String.self, forKey: .payload).utf8)
        pushType = try container.decode(String.self, forKey: .pushType)
        priority = try container.decodeIfPresent(Int.self, forKey: .priority)
        expiration = try container.decodeIfPresent(Int64.self, forKey: .expiration)
        collapseId = try container.decodeIfPresent(String.self, forKey: .collapseId)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(String(decoding: payload, as: UTF8.self), forKey: .payload)
        try container.encode(pushType, forKey: .pushType)
        try container.encodeIfPresent(priority, forKey: .priority)
        try container.encodeIfPresent(expiration, forKey: .expiration)
        try container.encodeIfPresent(collapseId, forKey: .collapseId)
    }

    /// The push types APNs knows (mirrors HeraldAPNs.APNsPushType, which HeraldCore cannot see).
    public static let pushTypes: Set<String> = [
        "alert", "background", "voip", "complication", "fileprovider", "mdm", "location", "liveactivity",
        "pushtotalk", "widgets", "controls",
    ]

    /// Why a message makes no APNs push: an `alert` push needs something to show.
    public static let nothingToShow =
        "nothing to show on an Apple device: give a string message, an ios-alert-* header, ios-badge, ios-sound or ios-content-available"

    /// Maps a message and its headers; throws 5041 when nothing would show or wake the app,
    /// 8008 for a header APNs would refuse, 8000 when the payload is over APNs's limit.
    public init(message: JSONValue, headers: [String: JSONValue]) throws(HeraldFault) {
        var alert: [String: JSONValue] = [:]
        var aps: [String: JSONValue] = [:]
        var root: [String: JSONValue] = [:]
        var pushType: String?
        var priority: Int?
        var expiration: Int64?
        var collapseId: String?

        if let title = try Self.text(headers, "ios-alert-title") { alert["title"] = .string(title) }
        if let subtitle = try Self.text(headers, "ios-alert-subtitle") { alert["subtitle"] = .string(subtitle) }
        let explicitBody = try Self.text(headers, "ios-alert-body")
        let legacyBody = try Self.text(headers, "ios-alert")
        if let body = explicitBody ?? legacyBody {
            alert["body"] = .string(body)
        } else if case .string(let body) = message {
            alert["body"] = .string(body)
        }
        if !alert.isEmpty { aps["alert"] = .object(alert) }
        if let badge = headers["ios-badge"] { aps["badge"] = .integer(try Self.integer(badge, "ios-badge")) }
        if let sound = try Self.text(headers, "ios-sound") { aps["sound"] = .string(sound) }
        if try Self.flag(headers, "ios-content-available") { aps["content-available"] = .integer(1) }
        if try Self.flag(headers, "ios-mutable-content") { aps["mutable-content"] = .integer(1) }
        if let category = try Self.text(headers, "ios-category") { aps["category"] = .string(category) }
        if let thread = try Self.text(headers, "ios-thread-id") { aps["thread-id"] = .string(thread) }

        if let type = try Self.text(headers, "apns-push-type") {
            guard Self.pushTypes.contains(type) else {
                throw .invalidParameter("apns-push-type", "not an APNs push type: '\(type.prefix(32))'")
            }
            pushType = type
        }
        if let value = headers["apns-priority"] {
            let number = try Self.integer(value, "apns-priority")
            guard [1, 5, 10].contains(number) else { throw .invalidParameter("apns-priority", "must be 1, 5 or 10") }
            priority = Int(number)
        }
        if let value = headers["apns-expiration"] {
            let seconds = try Self.integer(value, "apns-expiration")
            guard seconds >= 0 else { throw .invalidParameter("apns-expiration", "epoch seconds, or 0 for once") }
            expiration = seconds
        }
        if let collapse = try Self.text(headers, "apns-collapse-id") {
            if collapse.utf8.count > 64 { throw .tooLong(property: "apns-collapse-id", length: collapse.utf8.count, limit: 64) }
            collapseId = collapse
        }

        for (name, value) in headers where !MessageContents.isMapped(name) {
            if name == "aps" { throw .invalidParameter("headers", "'aps' is the APNs dictionary; use the ios-* headers") }
            root[name] = value
        }

        let silent = aps["alert"] == nil && aps["content-available"] != nil
        let type = pushType ?? (silent ? "background" : "alert")
        if type == "background" {
            if let priority, priority != 5 { throw .invalidParameter("apns-priority", "background pushes must use priority 5") }
            priority = 5
        }
        if aps["alert"] == nil, aps["content-available"] == nil, aps["badge"] == nil, aps["sound"] == nil, type == "alert" {
            throw .invalidPushMessage(Self.nothingToShow)
        }
        root["aps"] = .object(aps)
        let payload = try Self.encode(.object(root))
        let limit = type == "voip" ? 5120 : 4096
        if payload.count > limit { throw .tooLong(property: "payload", length: payload.count, limit: limit) }
        self.init(payload: payload, pushType: type, priority: priority, expiration: expiration, collapseId: collapseId)
    }

    /// A header given as text (or a whole number, written as text); nil when absent or null. Shared with FCMContent.
    static func text(_ headers: [String: JSONValue], _ name: String) throws(HeraldFault) -> String? {
        switch headers[name] {
        case nil, .null: return nil
        case .string(let text): return text
        case .integer(let number): return String(number)
        case let other?: throw .invalidParameter(name, "expected a string, got \(other.typeName)")
        }
    }

    /// A header given as a whole number or as its digits. Shared with FCMContent.
    static func integer(_ value: JSONValue, _ name: String) throws(HeraldFault) -> Int64 {
        switch value {
        case .integer(let number): return number
        case .string(let text):
            if let number = Int64(text.trimmingCharacters(in: .whitespaces)) { return number }
            throw .invalidParameter(name, "expected a whole number, got '\(text.prefix(32))'")
        default: throw .invalidParameter(name, "expected a whole number, got \(value.typeName)")
        }
    }

    private static func flag(_ headers: [String: JSONValue], _ name: String) throws(HeraldFault) -> Bool {
        switch headers[name] {
        case nil, .null: return false
        case .bool(let on): return on
        case .integer(let number): return number == 1
        case .string(let text):
            switch text.lowercased() {
            case "1", "true": return true
            case "0", "false": return false
            default: throw .invalidParameter(name, "expected 1 or true, got '\(text.prefix(32))'")
            }
        case let other?: throw .invalidParameter(name, "expected 1 or true, got \(other.typeName)")
        }
    }

    /// Compact JSON with sorted keys, so equal content gives equal bytes. Shared with FCMContent.
    static func encode(_ value: JSONValue) throws(HeraldFault) -> [UInt8] {
        do {
            return Array(try SortedJSON.bytes(value))
        } catch {
            throw .invalidPushMessage("the payload cannot be written as JSON")
        }
    }
}
