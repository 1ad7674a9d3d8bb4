/// A push template (issue 24): an app's named content for its iOS, Android and web devices, kept by Herald,
/// downloaded by the Backendless SDKs right after they register (they render a template push on the
/// device from it), and published with values (`POST …/messaging/push/{name}`).
///
/// Each platform block holds the fields the SDKs read, as they read them (docs/design/issue-24-research.md):
/// a field is declared once in `iosFields`, `androidFields` or `webFields` with its JSON kind, and a block is checked
/// against them (an unknown field, a wrong kind or an over-long value is 8008 or 8000 naming the field),
/// so what the SDKs download is always what they can parse.
public struct PushTemplate: Sendable, Equatable {
    public let name: String
    /// The text of the push; `{name}` placeholders are filled from the publish's values.
    public var message: String?
    /// The fields of each platform's block, as given (checked; null fields left out).
    public var ios: [String: JSONValue]
    public var android: [String: JSONValue]
    /// What Herald's own web block adds for browsers (`webFields`); the Backendless SDKs have none.
    public var web: [String: JSONValue]
    /// Who a push with this template goes to.
    public var audience: Audience
    /// The checked body as the admin gave it (`message`, `ios`, `android`, `web`, `audience`; null fields left out):
    /// what Herald stores and what reading the template answers.
    public let body: JSONValue

    public struct Audience: Sendable, Equatable {
        /// Channels whose devices it goes to; empty: every device of the app.
        public var channels: [ChannelName]
        /// Only devices on these systems; nil: every system.
        public var systems: [DeviceOS]?
        public var segment: Segment?

        public init(channels: [ChannelName] = [], systems: [DeviceOS]? = nil, segment: Segment? = nil) {
            self.channels = channels
            self.systems = systems
            self.segment = segment
        }
    }

    /// Limits, so a template stays a template: names as Backendless allows them, a message and fields of
    /// notification size.
    public static let maxNameLength = 64
    public static let maxMessageLength = 4096
    public static let maxTextLength = 1024
    public static let maxActions = 10
    public static let maxCustomHeaders = 50

    /// The template `name` as the admin body describes it (`{"message", "ios", "android", "web", "audience"}`).
    public init(name: String, json body: JSONValue) throws(HeraldFault) {
        guard (1...Self.maxNameLength).contains(name.count),
            name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-_. ".contains($0)) })
        else {
            throw .invalidParameter("templateName", "1 to \(Self.maxNameLength) of A-Z a-z 0-9 - _ . and space")
        }
        guard case .object(let fields) = body else { throw .invalidParameter("body", "expected a JSON object") }
        for key in fields.keys where !["message", "ios", "android", "web", "audience"].contains(key) {
            throw .invalidParameter(key, "unknown field (expected message, ios, android, web, audience)")
        }
        self.name = name
        switch fields["message"] {
        case nil, .null?: message = nil
        case .string(let text)?:
            try Limits.check("message", text, limit: Self.maxMessageLength)
            message = text
        default: throw .invalidParameter("message", "expected a string")
        }
        ios = Self.withoutNulls(try Self.block(fields["ios"], "ios", Self.iosFields))
        android = Self.withoutNulls(try Self.block(fields["android"], "android", Self.androidFields))
        web = Self.withoutNulls(try Self.block(fields["web"], "web", Self.webFields))
        audience = try Self.audience(fields["audience"])
        self.body = .object(Self.withoutNulls(fields))
    }

    /// The JSON kind of a field the SDKs read.
    enum FieldKind: Sendable {
        case text
        case integer(ClosedRange<Int64>)
        case boolean
        /// An object of text values (`customHeaders`).
        case textMap
        case integerList
        /// A list of objects with these fields (`actions`).
        case actions([String: FieldKind])
    }

    /// The iOS block as the Swift and Objective-C SDKs read it.
    static let iosFields: [String: FieldKind] = [
        "contentAvailable": .integer(0...1), "mutableContent": .integer(0...1), "alertTitle": .text, "alertSubtitle": .text,
        "sound": .text, "badge": .integer(0...99_999), "attachmentUrl": .text, "customHeaders": .textMap, "threadId": .text,
        "summaryFormat": .text,
        "actions": .actions([
            "id": .text, "title": .text, "options": .integer(0...255), "inlineReply": .boolean, "inputButtonTitle": .text,
            "textInputPlaceholder": .text,
        ]),
    ]

    /// The Android block as the Android (java) SDK reads it.
    static let androidFields: [String: FieldKind] = [
        "contentAvailable": .integer(0...1), "priority": .integer(1...5), "sound": .text, "vibrate": .integerList,
        "lightsColor": .integer(Int64(Int32.min)...Int64(UInt32.max)), "lightsOnMs": .integer(0...60_000),
        "lightsOffMs": .integer(0...60_000), "colorCode": .integer(Int64(Int32.min)...Int64(UInt32.max)), "icon": .text,
        "largeIcon": .text, "attachmentUrl": .text, "contentTitle": .text, "summarySubText": .text, "badge": .integer(0...2),
        "badgeNumber": .integer(0...99_999), "cancelAfter": .integer(0...2_592_000), "cancelOnTap": .boolean,
        "actionOnTap": .text, "showBadge": .boolean, "visibility": .integer(-1...1), "customHeaders": .textMap,
        "actions": .actions(["id": .text, "title": .text, "options": .integer(0...1)]),
    ]

    /// The web block: the notification's title (else the Android or iOS title), its images, the page a
    /// click opens, and custom headers for the service worker's `data`.
    static let webFields: [String: FieldKind] = [
        "title": .text, "icon": .text, "badge": .text, "image": .text, "url": .text, "tag": .text, "customHeaders": .textMap,
    ]

    static func block(_ value: JSONValue?, _ path: String, _ declared: [String: FieldKind]) throws(HeraldFault)
        -> [String: JSONValue]
    {
        switch value {
        case nil, .null?: return [:]
        case .object(let fields)?:
            for (key, field) in fields {
                guard let kind = declared[key] else {
                    throw .invalidParameter("\(path).\(key)", "unknown field (known: \(declared.keys.sorted().joined(separator: ", ")))")
                }
                try check(field, kind, "\(path).\(key)")
            }
            return fields
        default: throw .invalidParameter(path, "expected a JSON object")
        }
    }

    static func check(_ value: JSONValue, _ kind: FieldKind, _ path: String) throws(HeraldFault) {
        switch (kind, value) {
        case (_, .null): return
        case (.text, .string(let text)):
            try Limits.check(path, text, limit: maxTextLength)
        case (.integer(let range), .integer(let number)):
            guard range.contains(number) else {
                throw .invalidParameter(path, "expected a whole number from \(range.lowerBound) to \(range.upperBound)")
            }
        case (.boolean, .bool): return
        case (.textMap, .object(let map)):
            guard map.count <= maxCustomHeaders else { throw .tooManyValues(property: path, limit: maxCustomHeaders) }
            for (key, item) in map {
                guard case .string(let text) = item else { throw .invalidParameter("\(path).\(key)", "expected a string") }
                try Limits.check("\(path).\(key)", text, limit: maxTextLength)
            }
        case (.integerList, .array(let items)):
            guard items.count <= 64 else { throw .tooManyValues(property: path, limit: 64) }
            for item in items {
                guard case .integer(let number) = item, (0...60_000).contains(number) else {
                    throw .invalidParameter(path, "expected whole numbers of milliseconds from 0 to 60000")
                }
            }
        case (.actions(let declared), .array(let items)):
            guard items.count <= maxActions else { throw .tooManyValues(property: path, limit: maxActions) }
            for (index, item) in items.enumerated() {
                let fields = try block(item, "\(path)[\(index)]", declared)
                for required in ["id", "title"] where fields[required] == nil {
                    throw .missingParameter("\(path)[\(index)].\(required)")
                }
            }
        default:
            throw .invalidParameter(path, "expected \(describe(kind))")
        }
    }

    static func describe(_ kind: FieldKind) -> String {
        switch kind {
        case .text: "a string"
        case .integer: "a whole number"
        case .boolean: "true or false"
        case .textMap: "an object of strings"
        case .integerList: "a list of whole numbers"
        case .actions: "a list of action objects"
        }
    }

    static func audience(_ value: JSONValue?) throws(HeraldFault) -> Audience {
        switch value {
        case nil, .null?: return Audience()
        case .object(let fields)?:
            for key in fields.keys where !["channels", "os", "segment"].contains(key) {
                throw .invalidParameter("audience.\(key)", "unknown field (expected channels, os, segment)")
            }
            var audience = Audience()
            switch fields["channels"] {
            case nil, .null?: break
            case .array(let items)?:
                guard items.count <= 100 else { throw .tooManyValues(property: "audience.channels", limit: 100) }
                for item in items {
                    guard case .string(let name) = item else { throw .invalidParameter("audience.channels", "expected channel names") }
                    audience.channels.append(try ChannelName(validating: name, property: "audience.channels"))
                }
            default: throw .invalidParameter("audience.channels", "expected a list of channel names")
            }
            switch fields["os"] {
            case nil, .null?: break
            case .string(let os)?: audience.systems = [try DeviceOS(parsing: os)]
            case .array(let items)?:
                audience.systems = try items.map { item throws(HeraldFault) -> DeviceOS in
                    guard case .string(let os) = item else {
                        throw .invalidParameter("audience.os", "expected IOS, OSX, ANDROID, WP or WEB")
                    }
                    return try DeviceOS(parsing: os)
                }
            default: throw .invalidParameter("audience.os", "expected an operating system or a list of them")
            }
            audience.segment = try Segment.parse(fields["segment"])
            return audience
        default: throw .invalidParameter("audience", "expected a JSON object")
        }
    }

    /// `value` with every null member of an object left out, at any depth (a null field is an absent one).
    static func withoutNulls(_ fields: [String: JSONValue]) -> [String: JSONValue] {
        fields.filter { $0.value != .null }.mapValues(withoutNulls)
    }

    static func withoutNulls(_ value: JSONValue) -> JSONValue {
        switch value {
        case .object(let fields): .object(withoutNulls(fields))
        case .array(let items): .array(items.map(withoutNulls))
        default: value
        }
    }

    /// The platform's block as the SDKs download it (`GET …/messaging/pushtemplates/{ios|android}`):
    /// the fields as given, and for Android its `name` (the SDK names the template's notification channel
    /// `<appId>:<name>` from it).
    public func sdkBlock(for os: DeviceOS) -> JSONValue {
        var fields =
            switch os {
            case .android: android
            case .web: web
            case .ios, .osx, .wp: ios
            }
        if os == .android { fields["name"] = .string(name) }
        return .object(fields)
    }

    /// `text` with each `{key}` placeholder replaced by `values[key]`; a placeholder with no value stays
    /// as written, so a missing value shows in the push rather than vanishing.
    public static func fill(_ text: String, with values: [String: String]) -> String {
        guard text.contains("{"), !values.isEmpty else { return text }
        var result = ""
        var rest = text[...]
        while let open = rest.firstIndex(of: "{") {
            result += rest[..<open]
            let after = rest.index(after: open)
            // The placeholder is what lies between this brace and the next closing one, unless another
            // opening brace comes first: then this one is text and the search goes on from that one.
            guard let end = rest[after...].firstIndex(where: { $0 == "}" || $0 == "{" }) else {
                rest = rest[open...]
                break
            }
            if rest[end] == "{" {
                result += rest[open..<end]
                rest = rest[end...]
                continue
            }
            result += values[String(rest[after..<end])] ?? String(rest[open...end])
            rest = rest[rest.index(after: end)...]
        }
        return result + rest
    }
}
