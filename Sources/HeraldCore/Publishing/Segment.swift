/// A publish's `segment`: which of the targeted devices get it, by what the registry knows of them.
/// Every condition given must hold; a device that never reported the field a condition looks at
/// (no app version, no locale, no model) does not match that condition.
public struct Segment: Sendable, Equatable, Codable {
    /// App version strictly below this one (compared numerically part by part).
    public var appVersionBelow: AppVersion?
    /// App version at or above this one.
    public var appVersionAtLeast: AppVersion?
    /// Language tags; a device matches one equal to its locale or a prefix of it at a `-` (`de` matches
    /// `de-CH`, not `den`), in any case.
    public var locales: [String]?
    /// Exact model identifiers (`iPhone15,2`).
    public var deviceModels: [String]?
    /// Seen (registered or launched) at or after this time.
    public var seenSince: Timestamp?

    public init(
        appVersionBelow: AppVersion? = nil, appVersionAtLeast: AppVersion? = nil, locales: [String]? = nil,
        deviceModels: [String]? = nil, seenSince: Timestamp? = nil
    ) {
        self.appVersionBelow = appVersionBelow
        self.appVersionAtLeast = appVersionAtLeast
        self.locales = locales
        self.deviceModels = deviceModels
        self.seenSince = seenSince
    }

    /// At most this many locales or device models in one segment (8000 past it), whatever the body limit.
    public static let maxListCount = 100

    /// Reads `segment`; absent or null is nil. Unknown keys and bad values are 8008 naming
    /// `segment.<key>`, a list or value over its limit 8000.
    public static func parse(_ value: JSONValue?) throws(HeraldFault) -> Segment? {
        let fields: [String: JSONValue]
        switch value {
        case nil, .null?: return nil
        case .object(let object)?: fields = object
        case let other?: throw .invalidParameter("segment", "expected an object, got \(other.typeName)")
        }
        let known = ["appVersionBelow", "appVersionAtLeast", "locales", "deviceModels", "seenSince"]
        for key in fields.keys.sorted() where !known.contains(key) {
            throw .invalidParameter(
                "segment", "unknown key '\(key.prefix(64))' (expected appVersionBelow, appVersionAtLeast, locales, deviceModels, seenSince)"
            )
        }
        var segment = Segment()
        func version(_ key: String) throws(HeraldFault) -> AppVersion? {
            switch fields[key] {
            case nil, .null?: return nil
            case .string(let text)?:
                try Limits.check("segment.\(key)", text, limit: 32)
                guard let version = AppVersion(text), version.isExact else {
                    throw .invalidParameter("segment.\(key)", "expected a version of 1 to 4 numbers joined by '.', such as 2.3")
                }
                return version
            case let other?: throw .invalidParameter("segment.\(key)", "expected a string such as \"2.3\", got \(other.typeName)")
            }
        }
        func list(_ key: String, limit: Int, check: (String) -> Bool, expected: String) throws(HeraldFault) -> [String]? {
            let items: [JSONValue]
            switch fields[key] {
            case nil, .null?: return nil
            case .array(let array)?: items = array
            case let other?: throw .invalidParameter("segment.\(key)", "expected an array of strings, got \(other.typeName)")
            }
            guard !items.isEmpty else { throw .invalidParameter("segment.\(key)", "name at least one, or leave it out") }
            if items.count > maxListCount { throw .tooLong(property: "segment.\(key)", length: items.count, limit: maxListCount) }
            var values: [String] = []
            for item in items {
                guard case .string(let text) = item else {
                    throw .invalidParameter("segment.\(key)", "every entry must be a string, got \(item.typeName)")
                }
                try Limits.check("segment.\(key)", text, limit: limit)
                guard check(text) else { throw .invalidParameter("segment.\(key)", "expected \(expected), got '\(text.prefix(64))'") }
                if !values.contains(text) { values.append(text) }
            }
            return values
        }
        segment.appVersionBelow = try version("appVersionBelow")
        segment.appVersionAtLeast = try version("appVersionAtLeast")
        segment.locales = try list(
            "locales", limit: 35, check: DeviceMetadata.isLanguageTag, expected: "BCP 47 language tags such as de or fr-CA")
        segment.deviceModels = try list(
            "deviceModels", limit: 64, check: { !$0.isEmpty && !$0.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F } },
            expected: "model identifiers such as iPhone15,2")
        switch fields["seenSince"] {
        case nil, .null?: break
        case .integer(let milliseconds)? where milliseconds >= 0: segment.seenSince = Timestamp(milliseconds: milliseconds)
        case let other?: throw .invalidParameter("segment.seenSince", "expected epoch milliseconds, got \(other.typeName)")
        }
        return segment == Segment() ? nil : segment
    }
}

/// An app version as a comparable key: up to four numeric parts (`2`, `2.3`, `10.0.1`, `1.2.3.4`),
/// missing parts counting as 0, so `2.3` equals `2.3.0` and is below `2.10`. A device's version is read
/// leniently (`2.3.1-beta` is 2.3.1, a fifth part is ignored); a version that does not start with a
/// number has no key and matches no version condition.
public struct AppVersion: Sendable, Hashable, Codable, Comparable, CustomStringConvertible {
    /// The four parts, each at most 999,999,999.
    public let parts: [Int]
    /// Whether the text was exactly 1 to 4 numbers joined by dots (what a segment must give).
    public let isExact: Bool

    public init?(_ text: String) {
        var parts: [Int] = []
        var exact = true
        let pieces = text.split(separator: ".", omittingEmptySubsequences: false)
        for piece in pieces.prefix(4) {
            let digits = piece.prefix { $0.isASCII && $0.isNumber }
            if digits.isEmpty { break }
            if digits.count != piece.count { exact = false }
            parts.append(digits.count > 9 ? 999_999_999 : Int(digits) ?? 0)
            if digits.count != piece.count { break }
        }
        guard !parts.isEmpty else { return nil }
        if pieces.count > 4 || parts.count != pieces.count { exact = false }
        self.isExact = exact
        self.parts = parts + Array(repeating: 0, count: 4 - parts.count)
    }

    /// 36 digits, ordered as the versions are: what the store keeps beside the version and compares in SQL.
    public var key: String {
        parts.map { part in
            let digits = String(part)
            return String(repeating: "0", count: 9 - digits.count) + digits
        }.joined()
    }

    public var description: String { parts.map(String.init).joined(separator: ".") }

    public static func < (lhs: AppVersion, rhs: AppVersion) -> Bool { lhs.parts.lexicographicallyPrecedes(rhs.parts) }
    public static func == (lhs: AppVersion, rhs: AppVersion) -> Bool { lhs.parts == rhs.parts }
    public func hash(into hasher: inout Hasher) { hasher.combine(parts) }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let version = AppVersion(text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not a version: \(text)"))
        }
        self = version
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
