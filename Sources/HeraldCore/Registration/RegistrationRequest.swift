/// A validated `POST …/messaging/registrations` body. Once built, every field obeys the contract,
/// so the store never sees an invalid value.
public struct RegistrationRequest: Sendable, Equatable {
    public var deviceId: DeviceID
    public var deviceToken: DeviceToken
    public var os: DeviceOS
    public var osVersion: String?
    /// Distinct channels in the order given; never empty (`default` when none were named).
    public var channels: [ChannelName]
    public var expiration: Expiration?
    /// What the app sent about the install (`installId`, `appVersion`, …); the rest stays as stored.
    public var metadata: DeviceMetadata

    public init(
        deviceId: DeviceID, deviceToken: DeviceToken, os: DeviceOS, osVersion: String?,
        channels: [ChannelName], expiration: Expiration?, metadata: DeviceMetadata = DeviceMetadata()
    ) {
        self.deviceId = deviceId
        self.deviceToken = deviceToken
        self.os = os
        self.osVersion = osVersion
        self.channels = channels.isEmpty ? [.default] : channels
        self.expiration = expiration
        self.metadata = metadata
    }

    /// Validates a decoded body, the device token by `rules` (the app's). Unknown keys are ignored, as
    /// Backendless does.
    public init(json: JSONValue, now: Timestamp, rules: DeviceToken.Rules = DeviceToken.Rules()) throws(HeraldFault) {
        guard case .object(let body) = json else { throw .unparsable("the body must be a JSON object") }

        let token = try Self.optionalString(body, "deviceToken")
        let id = try Self.optionalString(body, "deviceId")
        let osText = try Self.optionalString(body, "os")
        let osVersion = try Self.optionalString(body, "osVersion")

        guard let token, !token.isEmpty else { throw .missingParameter("deviceToken") }
        guard let id, !id.isEmpty else { throw .missingDeviceId }
        try Limits.check("deviceId", id, limit: Limits.deviceId)
        if let osText { try Limits.check("os", osText, limit: Limits.os) }
        if let osVersion { try Limits.check("osVersion", osVersion, limit: Limits.osVersion) }

        let os = try osText.map { text throws(HeraldFault) in try DeviceOS(parsing: text) } ?? .ios
        try Limits.check("deviceToken", token, limit: DeviceToken.limit(for: os))
        self.init(
            deviceId: try DeviceID(validating: id),
            deviceToken: try DeviceToken(validating: token, os: os, rules: rules),
            os: os,
            osVersion: osVersion,
            channels: try Self.channels(body["channels"]),
            expiration: try Expiration.parse(body["expiration"] ?? .null, now: now),
            metadata: try DeviceMetadata(json: body))
    }

    /// A string field of a body: nil when absent or null; 8008 for another JSON type or a control character.
    public static func optionalString(_ body: [String: JSONValue], _ key: String) throws(HeraldFault) -> String? {
        switch body[key] {
        case nil, .null: return nil
        case .string(let value):
            try Limits.checkPrintable(key, value)
            return value
        case let other?: throw .invalidParameter(key, "expected a string, got \(other.typeName)")
        }
    }

    static func channels(_ value: JSONValue?) throws(HeraldFault) -> [ChannelName] {
        let names: [JSONValue]
        switch value {
        case nil, .null: return [.default]
        case .array(let list): names = list
        case .string(let single): names = [.string(single)]
        case let other?: throw .invalidParameter("channels", "expected an array of channel names, got \(other.typeName)")
        }
        if names.count > Limits.channelsPerRegistration {
            throw .tooLong(property: "channels", length: names.count, limit: Limits.channelsPerRegistration)
        }
        var seen = Set<ChannelName>()
        var result: [ChannelName] = []
        for name in names {
            guard case .string(let text) = name else {
                throw .invalidParameter("channels", "every channel name must be a string, got \(name.typeName)")
            }
            let channel = try ChannelName(validating: text, property: "channels")
            if seen.insert(channel).inserted { result.append(channel) }
        }
        return result.isEmpty ? [.default] : result
    }
}
