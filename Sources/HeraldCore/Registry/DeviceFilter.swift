/// Which devices the admin's listing shows: every condition given must hold.
public struct DeviceFilter: Sendable, Equatable {
    /// In this channel, with a live registration.
    public var channel: ChannelName?
    public var os: DeviceOS?
    /// Switched on (true) or off (false), by anyone.
    public var active: Bool?
    /// Exactly this app version.
    public var appVersion: String?
    /// Seen (registered or launched) at or after this time.
    public var seenSince: Timestamp?
    /// Seen before this time.
    public var seenBefore: Timestamp?
    /// Part of the device id, install id or device name, in any case.
    public var query: String?

    public init(
        channel: ChannelName? = nil, os: DeviceOS? = nil, active: Bool? = nil, appVersion: String? = nil,
        seenSince: Timestamp? = nil, seenBefore: Timestamp? = nil, query: String? = nil
    ) {
        self.channel = channel
        self.os = os
        self.active = active
        self.appVersion = appVersion
        self.seenSince = seenSince
        self.seenBefore = seenBefore
        self.query = query
    }

    /// Reads the listing's query parameters (`channel`, `os`, `active`, `appVersion`, `seenSince`,
    /// `seenBefore`, `q`); a bad value is 8008 naming it, an over-long one 8000.
    public init(parameter: (String) -> String?) throws(HeraldFault) {
        self.init()
        func text(_ name: String, limit: Int) throws(HeraldFault) -> String? {
            guard let value = parameter(name), !value.isEmpty else { return nil }
            try Limits.check(name, value, limit: limit)
            try Limits.checkPrintable(name, value)
            return value
        }
        func time(_ name: String) throws(HeraldFault) -> Timestamp? {
            guard let value = try text(name, limit: 20) else { return nil }
            guard let milliseconds = Int64(value), milliseconds >= 0 else {
                throw .invalidParameter(name, "expected epoch milliseconds")
            }
            return Timestamp(milliseconds: milliseconds)
        }
        channel = try text("channel", limit: Limits.channelName).map { name throws(HeraldFault) in
            try ChannelName(validating: name, property: "channel")
        }
        os = try text("os", limit: Limits.os).map { name throws(HeraldFault) in try DeviceOS(parsing: name) }
        switch try text("active", limit: 5) {
        case nil: active = nil
        case "true": active = true
        case "false": active = false
        case let other?: throw .invalidParameter("active", "expected true or false, not '\(other)'")
        }
        appVersion = try text("appVersion", limit: 32)
        seenSince = try time("seenSince")
        seenBefore = try time("seenBefore")
        query = try text("q", limit: 128)
    }
}
