/// Which registrations one message goes to.
public struct RecipientFilter: Sendable, Equatable {
    /// The channel for a broadcast; ignored when `devices` is set.
    public var channel: ChannelName
    /// pushSinglecast: only these devices (in the app, whatever channel).
    public var devices: [String]?
    /// Only devices with one of these operating systems.
    public var systems: [DeviceOS]
    /// Only devices whose key is at most this (the end of a fan-out slice); nil: no end.
    public var upTo: Int64?
    /// Only devices that match it.
    public var segment: Segment?

    public init(channel: ChannelName, devices: [String]?, systems: [DeviceOS], upTo: Int64? = nil, segment: Segment? = nil) {
        self.channel = channel
        self.devices = devices
        self.systems = systems
        self.upTo = upTo
        self.segment = segment
    }
}

/// One device a message goes to: live (an unexpired registration that matches) and active.
public struct Recipient: Sendable, Equatable {
    /// The device's store key; pages are ordered by it, and the fan-out checkpoints it.
    public var key: Int64
    public var deviceId: String
    public var deviceToken: String
    public var os: DeviceOS

    public init(key: Int64, deviceId: String, deviceToken: String, os: DeviceOS) {
        self.key = key
        self.deviceId = deviceId
        self.deviceToken = deviceToken
        self.os = os
    }
}
