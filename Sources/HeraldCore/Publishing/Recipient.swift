/// Which registrations one message goes to.
public struct RecipientFilter: Sendable, Equatable {
    /// The channel for a broadcast; ignored when `devices` or `audience` is set.
    public var channel: ChannelName
    /// A template's audience instead of `channel`: devices with a live registration in any of these
    /// channels, each once; every device with a live registration when empty. Ignored when `devices` is set.
    public var audience: [ChannelName]?
    /// pushSinglecast: only these devices (in the app, whatever channel).
    public var devices: [String]?
    /// Only devices with one of these operating systems.
    public var systems: [DeviceOS]
    /// Only devices whose key is at most this (the end of a fan-out slice); nil: no end.
    public var upTo: Int64?
    /// Only devices that match it.
    public var segment: Segment?
    /// A Live Activity publish: each matching device's Live Activity tokens of the target instead of its
    /// own token (one recipient per token, so a device with two activities of the type is two recipients).
    public var liveActivity: LiveActivityTarget?

    public init(
        channel: ChannelName, devices: [String]?, systems: [DeviceOS], upTo: Int64? = nil, segment: Segment? = nil,
        audience: [ChannelName]? = nil, liveActivity: LiveActivityTarget? = nil
    ) {
        self.channel = channel
        self.liveActivity = liveActivity
        self.audience = audience
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

/// One page of a listing paged by store key: what it found, and the key the next page starts after.
///
/// A page looks at a bounded run of keys, so some or all of them may be filtered out: a page can hold
/// fewer items than asked for, even none, and still have a `next`. Only a nil `next` ends the listing.
public struct KeysetPage<Item: Sendable>: Sendable {
    public var items: [Item]
    /// The last key this page looked at, to pass as the next page's cursor; nil: there is no next page.
    public var next: Int64?

    public init(items: [Item], next: Int64?) {
        self.items = items
        self.next = next
    }
}

extension KeysetPage: Equatable where Item: Equatable {}
