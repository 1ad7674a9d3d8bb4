import Foundation

/// What a browser's service worker receives for one message, built once per message from `message`
/// and `headers` by the web-* mapping (docs/api.md, "Web Push"): the JSON plaintext every WEB device
/// gets (Web Push encrypts it per subscription when it is sent) and the request headers a push service
/// reads (`TTL`, `Urgency`, `Topic`).
///
/// The plaintext is `{"title","body","icon","badge","image","tag","url","data"}` with the members that
/// have a value: the shape the Notification API's `showNotification(title, options)` takes, plus the
/// page to open and the publish's custom headers (and a structured `message`) under `data`.
public struct WebPushContent: Sendable, Hashable, Codable {
    /// The JSON the service worker reads (keys sorted, so equal messages give equal bytes).
    public let payload: [UInt8]
    /// How long the push service keeps the message for a browser that is offline, in seconds.
    public let ttl: Int64
    /// `very-low`, `low`, `normal` or `high` (RFC 8030 §5.3); nil leaves the service's default (normal).
    public let urgency: String?
    /// Replaces a message with the same topic still waiting at the push service (RFC 8030 §5.4).
    public let topic: String?

    /// The longest plaintext: a push service takes at most 4096 bytes of body (RFC 8030 §7.2), and the
    /// aes128gcm record around the plaintext adds 86 bytes of header, a padding delimiter and a 16-byte
    /// tag (HeraldWebPush's `WebPushEncryption.maxPlaintext`, which its tests hold equal to this).
    public static let maxPayloadBytes = 4096 - 86 - 1 - 16
    /// `web-ttl`'s range and default: four weeks, the longest the major push services keep a message.
    public static let ttlRange: ClosedRange<Int64> = 0...2_419_200
    public static let urgencies: Set<String> = ["very-low", "low", "normal", "high"]

    public init(payload: [UInt8], ttl: Int64 = ttlRange.upperBound, urgency: String? = nil, topic: String? = nil) {
        self.payload = payload
        self.ttl = ttl
        self.urgency = urgency
        self.topic = topic
    }

    /// Maps a message and its headers; throws 8008 for a web-* header a push service would refuse,
    /// 8000 when the plaintext is over the limit.
    public init(message: JSONValue, headers: [String: JSONValue]) throws(HeraldFault) {
        var notification: [String: JSONValue] = [:]
        // The title the other platforms show when the publish gives none for browsers.
        for header in ["web-title", "android-content-title", "ios-alert-title"] where notification["title"] == nil {
            if let title = try APNsContent.text(headers, header) { notification["title"] = .string(title) }
        }
        if let body = try APNsContent.text(headers, "web-body") {
            notification["body"] = .string(body)
        } else if case .string(let body) = message {
            notification["body"] = .string(body)
        }
        for (header, field) in Self.notificationHeaders {
            if let value = try APNsContent.text(headers, header) { notification[field] = .string(value) }
        }
        var data: [String: JSONValue] = [:]
        for (name, value) in headers where !MessageContents.isMapped(name) && value != .null {
            data[name] = value
        }
        switch message {
        case .string, .null: break
        default: data["message"] = message
        }
        if !data.isEmpty { notification["data"] = .object(data) }
        let payload = try APNsContent.encode(.object(notification))
        if payload.count > Self.maxPayloadBytes {
            throw .tooLong(property: "payload", length: payload.count, limit: Self.maxPayloadBytes)
        }
        self.init(
            payload: payload, ttl: try Self.ttl(headers["web-ttl"]), urgency: try Self.urgency(headers["web-urgency"]),
            topic: try Self.topic(headers["web-topic"]))
    }

    /// Headers that become members of the plaintext as they are.
    static let notificationHeaders: [(header: String, field: String)] = [
        ("web-icon", "icon"), ("web-badge", "badge"), ("web-image", "image"), ("web-tag", "tag"), ("web-url", "url"),
    ]

    static func ttl(_ value: JSONValue?) throws(HeraldFault) -> Int64 {
        guard let value, value != .null else { return ttlRange.upperBound }
        let seconds = try APNsContent.integer(value, "web-ttl")
        guard ttlRange.contains(seconds) else {
            throw .invalidParameter("web-ttl", "seconds from 0 to \(ttlRange.upperBound) (28 days)")
        }
        return seconds
    }

    static func urgency(_ value: JSONValue?) throws(HeraldFault) -> String? {
        switch value {
        case nil, .null?: return nil
        case .string(let text)?:
            let word = text.trimmingCharacters(in: .whitespaces).lowercased()
            guard urgencies.contains(word) else {
                throw .invalidParameter("web-urgency", "expected very-low, low, normal or high, got '\(text.prefix(32))'")
            }
            return word
        case let other?: throw .invalidParameter("web-urgency", "expected a string, got \(other.typeName)")
        }
    }

    /// A topic is at most 32 characters of the URL-safe base64 alphabet (RFC 8030 §5.4).
    static func topic(_ value: JSONValue?) throws(HeraldFault) -> String? {
        switch value {
        case nil, .null?: return nil
        case .string(let text)?:
            let isURLSafe = text.utf8.allSatisfy { byte in
                (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5a) || (byte >= 0x61 && byte <= 0x7a) || byte == 0x2d
                    || byte == 0x5f
            }
            guard (1...32).contains(text.utf8.count), isURLSafe else {
                throw .invalidParameter("web-topic", "1 to 32 characters of A-Z a-z 0-9 - and _")
            }
            return text
        case let other?: throw .invalidParameter("web-topic", "expected a string, got \(other.typeName)")
        }
    }

    private enum CodingKeys: String, CodingKey { case payload, ttl, urgency, topic }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        // Stored as its JSON text, not as an array of byte values.
        self.init(
            payload: Array(try container.decode(String.self, forKey: .payload).utf8), ttl: try container.decode(Int64.self, forKey: .ttl),
            urgency: try container.decodeIfPresent(String.self, forKey: .urgency),
            topic: try container.decodeIfPresent(String.self, forKey: .topic))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(String(decoding: payload, as: UTF8.self), forKey: .payload)
        try container.encode(ttl, forKey: .ttl)
        try container.encodeIfPresent(urgency, forKey: .urgency)
        try container.encodeIfPresent(topic, forKey: .topic)
    }
}
