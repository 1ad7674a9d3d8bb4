import Foundation

/// A Live Activity publish: one ActivityKit event (`start`, `update` or `end`) for the activities of one
/// `ActivityAttributes` type, as Apple's `aps` keys.
///
/// Built from a publish body in Herald's camelCase (`contentState`, `staleDate`, …) and checked against
/// what a device accepts, not only what APNs accepts: APNs answers 200 to a payload the device then drops
/// without a word (a null anywhere, dates as text or milliseconds, a start without `alert`), so those are
/// refused here with 8008 naming the key. Dates are kept as epoch seconds.
public struct LiveActivityEvent: Sendable, Equatable, Codable {
    public enum Kind: String, Sendable, Hashable, Codable, CaseIterable {
        case start, update, end
    }

    public var kind: Kind
    /// The Swift `ActivityAttributes` type name: which push-to-start tokens a start goes to, and which
    /// activities an update or end goes to.
    public var attributesType: String
    /// Update and end: only this activity (the id the app registered it under), not every one of the type.
    public var activityId: String?
    /// `apns-priority`: 5 unless asked (10 counts against Apple's hourly budget for the app).
    public var priority: Int
    /// `aps` without `timestamp` and `input-push-channel`, which are added when the payload is built.
    public var aps: [String: JSONValue]

    /// The keys a body may hold besides the audience (`devices`, `segment`), mapped to Apple's names.
    static let apsKeys: [String: String] = [
        "contentState": "content-state", "staleDate": "stale-date", "dismissalDate": "dismissal-date",
        "relevanceScore": "relevance-score", "alert": "alert", "attributes": "attributes",
        "inputPushToken": "input-push-token",
    ]
    /// The body keys besides Apple's: what a Live Activity publish route reads itself.
    public static let bodyKeys: Set<String> = Set(apsKeys.keys).union(["event", "attributesType", "activityId", "priority"])
    /// Apple's limit for a Live Activity payload sent to a token.
    public static let payloadLimit = 4096
    /// Apple's limit for a broadcast payload.
    public static let broadcastPayloadLimit = 5120

    public init(kind: Kind, attributesType: String, activityId: String?, priority: Int, aps: [String: JSONValue]) {
        self.kind = kind
        self.attributesType = attributesType
        self.activityId = activityId
        self.priority = priority
        self.aps = aps
    }

    /// Checks a publish body's event keys (the audience keys are the route's); 8007 for a missing key, 8008
    /// for a wrong one, 8000 when the payload would pass Apple's 4 KB.
    public init(json body: [String: JSONValue]) throws(HeraldFault) {
        guard let eventText = try RegistrationRequest.optionalString(body, "event") else { throw .missingParameter("event") }
        guard let kind = Kind(rawValue: eventText) else {
            throw .invalidParameter("event", "expected start, update or end, got \(eventText)")
        }
        guard let type = try RegistrationRequest.optionalString(body, "attributesType"), !type.isEmpty else {
            throw .missingParameter("attributesType")
        }
        try Limits.check("attributesType", type, limit: Self.attributesTypeLimit)
        let activityId = try RegistrationRequest.optionalString(body, "activityId")
        if let activityId {
            guard kind != .start else { throw .invalidParameter("activityId", "a start has no activity yet: leave it out") }
            try LiveActivityID.check(activityId)
        }
        var aps: [String: JSONValue] = ["event": .string(kind.rawValue)]
        for (key, apple) in Self.apsKeys {
            guard let value = body[key] else { continue }
            try Self.refuseNull(value, at: key)
            aps[apple] = value
        }
        try Self.checkKinds(kind, aps)
        for key in ["stale-date", "dismissal-date"] {
            if let value = aps[key] { aps[key] = .integer(try Self.epochSeconds(value, key: key)) }
        }
        if let score = aps["relevance-score"] {
            switch score {
            case .integer, .number: break
            default: throw .invalidParameter("relevanceScore", "expected a number, got \(score.typeName)")
            }
        }
        if let input = aps["input-push-token"] {
            guard case .bool(let wanted) = input else {
                throw .invalidParameter("inputPushToken", "expected true or false, got \(input.typeName)")
            }
            aps["input-push-token"] = wanted ? .integer(1) : nil
        }
        let priority: Int
        switch body["priority"] {
        case nil, .null: priority = 5
        case .integer(let value) where value == 5 || value == 10: priority = Int(value)
        case let other?: throw .invalidParameter("priority", "expected 5 or 10, got \(other.scalarText ?? other.typeName)")
        }
        self.init(kind: kind, attributesType: type, activityId: activityId, priority: priority, aps: aps)
        let size = payload(timestamp: Timestamp(milliseconds: 0), inputPushChannel: nil).count
        if size > Self.payloadLimit { throw .tooLong(property: "payload", length: size, limit: Self.payloadLimit) }
    }

    /// The payload APNs receives: `aps` with `timestamp` (epoch seconds) and, for a start whose activities
    /// are to follow a broadcast channel, `input-push-channel`.
    public func payload(timestamp: Timestamp, inputPushChannel: String?) -> [UInt8] {
        var aps = aps
        aps["timestamp"] = .integer(timestamp.milliseconds / 1000)
        if kind == .start {
            // The type the device starts an activity of; updates and ends find theirs by token.
            aps["attributes-type"] = .string(attributesType)
            if let inputPushChannel { aps["input-push-channel"] = .string(inputPushChannel) }
        }
        return Array(SortedJSON.text(JSONValue.object(["aps": .object(aps)])).utf8)
    }

    public static let attributesTypeLimit = 128

    /// Which keys each event may and must carry (Apple's key table).
    static func checkKinds(_ kind: Kind, _ aps: [String: JSONValue]) throws(HeraldFault) {
        let startOnly = ["attributes": "attributes", "input-push-token": "inputPushToken"]
        switch kind {
        case .start:
            for (apple, key) in [("alert", "alert"), ("attributes", "attributes"), ("content-state", "contentState")] {
                guard aps[apple] != nil else { throw .missingParameter(key) }
            }
            if aps["dismissal-date"] != nil { throw .invalidParameter("dismissalDate", "only an end has one") }
        case .update, .end:
            guard aps["content-state"] != nil else { throw .missingParameter("contentState") }
            for (apple, key) in startOnly where aps[apple] != nil {
                throw .invalidParameter(key, "only a start has one")
            }
            if kind == .update, aps["dismissal-date"] != nil { throw .invalidParameter("dismissalDate", "only an end has one") }
        }
        for (apple, key) in [("attributes", "attributes"), ("content-state", "contentState")] {
            guard let value = aps[apple] else { continue }
            guard case .object = value else { throw .invalidParameter(key, "expected an object, got \(value.typeName)") }
            try Limits.checkStructure(key, value)
        }
        if let alert = aps["alert"] {
            guard case .object(let members) = alert, !members.isEmpty else {
                throw .invalidParameter("alert", "expected an object with title, body or loc-key")
            }
        }
    }

    /// A device drops a payload holding a null anywhere: refused, naming where.
    static func refuseNull(_ value: JSONValue, at path: String) throws(HeraldFault) {
        switch value {
        case .null: throw .invalidParameter(path, "null is not allowed in a Live Activity payload: leave the key out")
        case .object(let members): for (key, member) in members { try refuseNull(member, at: path + "." + key) }
        case .array(let items): for (index, item) in items.enumerated() { try refuseNull(item, at: "\(path)[\(index)]") }
        default: break
        }
    }

    /// Epoch seconds from a number of seconds, a number of milliseconds (anything past year 5138 in
    /// seconds is taken as milliseconds) or ISO 8601 text.
    static func epochSeconds(_ value: JSONValue, key: String) throws(HeraldFault) -> Int64 {
        let name = apsKeys.first { $0.value == key }?.key ?? key
        switch value {
        case .integer(let number) where number >= 0:
            return number >= 100_000_000_000 ? number / 1000 : number
        case .string(let text):
            guard let date = Expiration.parseISO8601(text) else {
                throw .invalidParameter(name, "expected epoch seconds or an ISO 8601 date, got \(text.prefix(40))")
            }
            return Int64(date.timeIntervalSince1970.rounded(.down))
        default:
            throw .invalidParameter(name, "expected epoch seconds or an ISO 8601 date, got \(value.scalarText ?? value.typeName)")
        }
    }
}

/// The id an app gives a running activity when it registers the activity's update token (ActivityKit's
/// `Activity.id`, a UUID, but any printable text up to 128 characters is taken).
public enum LiveActivityID {
    public static let limit = 128

    public static func check(_ id: String, property: String = "activityId") throws(HeraldFault) {
        guard !id.isEmpty else { throw .missingParameter(property) }
        try Limits.check(property, id, limit: limit)
        try Limits.checkPrintable(property, id)
    }
}
