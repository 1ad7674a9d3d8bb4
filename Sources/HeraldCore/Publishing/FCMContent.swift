import Foundation

/// What FCM receives for one message, built once per message from `message` and `headers` by
/// Backendless's android-* mapping: the `message` object of an FCM HTTP v1 request, all but the
/// device token, which `requestBody(token:)` puts in front for each device of a fan-out.
public struct FCMContent: Sendable, Hashable, Codable {
    /// The `message` object without `token` (keys sorted, so equal messages give equal bytes): what
    /// FCM's 4096-byte limit is checked against.
    public let message: [UInt8]
    /// What follows the token in every request body: its closing quote, the other members, `}}`.
    private let suffix: [UInt8]

    /// FCM's limit on a message's payload.
    public static let maxPayloadBytes = 4096
    /// `android.ttl`'s range in seconds (28 days).
    public static let ttlRange: ClosedRange<Int64> = 0...2_419_200

    /// A message object as `message` holds it (read back from storage).
    public init(encodedMessage: [UInt8]) {
        message = encodedMessage
        var suffix: [UInt8] = [UInt8(ascii: "\"")]
        // The members between the object's braces, after the token's.
        if encodedMessage.count > 2 {
            suffix.append(UInt8(ascii: ","))
            suffix.append(contentsOf: encodedMessage.dropFirst().dropLast())
        }
        suffix.append(contentsOf: "}}".utf8)
        self.suffix = suffix
    }

    /// Maps a message and its headers; throws 8008 for an android-* header FCM would refuse or a
    /// custom header FCM reserves, 8000 when the message is over FCM's limit.
    public init(message: JSONValue, headers: [String: JSONValue]) throws(HeraldFault) {
        var notification: [String: JSONValue] = [:]
        var android: [String: JSONValue] = [:]
        var androidNotification: [String: JSONValue] = [:]
        var data: [String: JSONValue] = [:]

        if let title = try APNsContent.text(headers, "android-content-title") { notification["title"] = .string(title) }
        if let body = try APNsContent.text(headers, "android-content-text") {
            notification["body"] = .string(body)
        } else if case .string(let body) = message {
            notification["body"] = .string(body)
        }
        for (header, field) in Self.androidNotificationHeaders {
            if let value = try APNsContent.text(headers, header) { androidNotification[field] = .string(value) }
        }
        if let value = headers["android-priority"], value != .null {
            android["priority"] = .string(try Self.priority(value))
        }
        if let value = headers["android-ttl"], value != .null {
            let seconds = try APNsContent.integer(value, "android-ttl")
            guard Self.ttlRange.contains(seconds) else {
                throw .invalidParameter("android-ttl", "seconds from 0 to \(Self.ttlRange.upperBound) (28 days)")
            }
            android["ttl"] = .string("\(seconds)s")
        }
        if let key = try APNsContent.text(headers, "android-collapse-key") { android["collapse_key"] = .string(key) }
        if !androidNotification.isEmpty { android["notification"] = .object(androidNotification) }

        for (name, value) in headers where !MessageContents.isMapped(name) && value != .null {
            if Self.isReservedDataKey(name) {
                throw .invalidParameter("headers", "'\(name.prefix(64))' is a key FCM reserves (from, message_type, google…, gcm…)")
            }
            data[name] = .string(try Self.dataText(value))
        }
        switch message {
        case .string, .null: break
        // Structure has no place in a notification: the app gets it as JSON text, as it would a header's.
        default: data["message"] = .string(try Self.dataText(message))
        }

        var object: [String: JSONValue] = [:]
        if !notification.isEmpty { object["notification"] = .object(notification) }
        if !android.isEmpty { object["android"] = .object(android) }
        if !data.isEmpty { object["data"] = .object(data) }
        let encoded = try APNsContent.encode(.object(object))
        if encoded.count > Self.maxPayloadBytes {
            throw .tooLong(property: "payload", length: encoded.count, limit: Self.maxPayloadBytes)
        }
        self.init(encodedMessage: encoded)
    }

    /// The whole request body for one device: `{"message":{"token":"…",…}}`, the token JSON-escaped.
    public func requestBody(token: String) -> [UInt8] {
        var body: [UInt8] = []
        body.reserveCapacity(Self.prefix.count + token.utf8.count + suffix.count)
        body.append(contentsOf: Self.prefix)
        // Real tokens are [A-Za-z0-9_:-]; anything else is escaped rather than trusted.
        JSONText.appendEscaped(token, to: &body)
        body.append(contentsOf: suffix)
        return body
    }

    private static let prefix = Array(#"{"message":{"token":""#.utf8)

    /// Headers that become `android.notification` fields as they are.
    static let androidNotificationHeaders: [(header: String, field: String)] = [
        ("android-ticker-text", "ticker"), ("android-sound", "sound"), ("android-icon", "icon"),
        ("android-channel-id", "channel_id"),
    ]

    /// `android-priority` in the words Backendless apps use: names, or Android's notification
    /// priorities (-2…2), where 1 and above ask FCM to wake the device.
    static func priority(_ value: JSONValue) throws(HeraldFault) -> String {
        switch value {
        case .integer(let number): return number >= 1 ? "HIGH" : "NORMAL"
        case .number(let number): return number >= 1 ? "HIGH" : "NORMAL"
        case .string(let text):
            let word = text.trimmingCharacters(in: .whitespaces).lowercased()
            if ["high", "max"].contains(word) { return "HIGH" }
            if ["normal", "low", "min", "default"].contains(word) { return "NORMAL" }
            if let number = Int64(word) { return number >= 1 ? "HIGH" : "NORMAL" }
            throw .invalidParameter("android-priority", "expected high or normal (or -2…2), got '\(text.prefix(32))'")
        default:
            throw .invalidParameter("android-priority", "expected high or normal (or -2…2), got \(value.typeName)")
        }
    }

    /// FCM's data values are strings: text as it is, anything else as its compact JSON.
    static func dataText(_ value: JSONValue) throws(HeraldFault) -> String {
        switch value {
        case .string(let text): return text
        case .integer(let number): return String(number)
        case .bool(let flag): return flag ? "true" : "false"
        default: return String(decoding: try APNsContent.encode(value), as: UTF8.self)
        }
    }

    /// Data keys FCM refuses: "from", "message_type", and any starting with "google" or "gcm".
    static func isReservedDataKey(_ name: String) -> Bool {
        let lower = name.lowercased()
        return lower == "from" || lower == "message_type" || lower.hasPrefix("google") || lower.hasPrefix("gcm")
    }

    private enum CodingKeys: String, CodingKey { case message }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        // Stored as its JSON text, not as an array of byte values.
        self.init(encodedMessage: Array(try container.decode(String.self, forKey: .message).utf8))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(String(decoding: message, as: UTF8.self), forKey: .message)
    }
}
