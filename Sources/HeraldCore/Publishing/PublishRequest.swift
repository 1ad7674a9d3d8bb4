/// A validated `POST …/messaging/{channel}` body. Once built it holds everything the dispatcher
/// needs, each provider's content included, so a message that was accepted can always be sent.
public struct PublishRequest: Sendable, Equatable {
    /// The message as given: a string, or any JSON value (the alert body only when a string).
    public var message: JSONValue
    public var publisherId: String?
    public var headers: [String: JSONValue]
    public var policy: PublishPolicy
    public var broadcast: PushBroadcast
    /// When present, only these devices (in this app, whatever channel); distinct, in order given.
    public var singlecast: [DeviceID]?
    /// When present, only the targeted devices the registry knows to match it.
    public var segment: Segment?
    public var schedule: PublishSchedule
    /// What each push service receives; nil when the policy does not push.
    public var contents: MessageContents?

    /// Validates a decoded body; unknown keys are ignored, as Backendless does.
    public init(json: JSONValue, now: Timestamp) throws(HeraldFault) {
        guard case .object(let body) = json else { throw .unparsable("the body must be a JSON object") }
        switch body["message"] {
        case nil, .null: throw .invalidPushMessage("'message' is required")
        case let value?: message = value
        }
        try Limits.checkStructure("message", message)
        publisherId = try RegistrationRequest.optionalString(body, "publisherId")
        if let publisherId { try Limits.check("publisherId", publisherId, limit: Limits.publisherId) }
        headers = try Self.headers(body["headers"])
        policy = try PublishPolicy.parse(
            body["publishPolicy"] ?? body["pushPolicy"],
            property: body["publishPolicy"] == nil && body["pushPolicy"] != nil ? "pushPolicy" : "publishPolicy")
        broadcast = try PushBroadcast.parse(body["pushBroadcast"])
        singlecast = try Self.singlecast(body["pushSinglecast"])
        segment = try Segment.parse(body["segment"])
        schedule = try PublishSchedule.parse(body, now: now)
        contents = policy.pushes ? try MessageContents(message: message, headers: headers, broadcast: broadcast) : nil
        // An object message goes to subscribers, and as data to Android and browsers; a publish that only
        // pushes, to platforms that all have nothing to show, would reach no one: refused rather than
        // accepted to do nothing.
        if policy == .push, let reason = contents?.unsendable(to: broadcast) { throw .invalidPushMessage(reason) }
    }

    static func headers(_ value: JSONValue?) throws(HeraldFault) -> [String: JSONValue] {
        switch value {
        case nil, .null: return [:]
        case .object(let headers):
            if headers.count > Limits.headersPerMessage {
                throw .tooLong(property: "headers", length: headers.count, limit: Limits.headersPerMessage)
            }
            for (name, value) in headers {
                try Limits.check("headers", name, limit: Limits.headerName)
                switch value {
                case .string(let text):
                    if text.count > Limits.headerValue {
                        throw .tooLong(property: "headers.\(name.prefix(64))", length: text.count, limit: Limits.headerValue)
                    }
                case .integer, .number, .bool, .null: break
                case .array, .object:
                    // Custom keys may carry structure, bounded by count as well as by the payload limit.
                    if MessageContents.isMapped(name) {
                        throw .invalidParameter("headers.\(name.prefix(64))", "expected a string, number or boolean")
                    }
                    try Limits.checkStructure("headers.\(name.prefix(64))", value)
                }
            }
            return headers.filter { $0.value != .null }
        case let other?: throw .invalidParameter("headers", "expected an object, got \(other.typeName)")
        }
    }

    public static func singlecast(_ value: JSONValue?) throws(HeraldFault) -> [DeviceID]? {
        let items: [JSONValue]
        switch value {
        case nil, .null: return nil
        case .array(let list): items = list
        case .string(let single): items = [.string(single)]
        case let other?: throw .invalidParameter("pushSinglecast", "expected an array of device ids, got \(other.typeName)")
        }
        guard !items.isEmpty else { throw .invalidParameter("pushSinglecast", "name at least one device, or leave it out") }
        if items.count > Limits.singlecastDevices {
            throw .tooLong(property: "pushSinglecast", length: items.count, limit: Limits.singlecastDevices)
        }
        var seen = Set<String>()
        var ids: [DeviceID] = []
        for item in items {
            guard case .string(let text) = item else {
                throw .invalidParameter("pushSinglecast", "every device id must be a string, got \(item.typeName)")
            }
            try Limits.check("pushSinglecast", text, limit: Limits.deviceId)
            if seen.insert(text).inserted { ids.append(try DeviceID(validating: text)) }
        }
        return ids
    }
}
