/// What `GET …/registrations/{deviceId}` answers: one device with its live channels.
public struct DeviceRegistration: Sendable, Equatable {
    /// The stable registration id for this app + deviceId.
    public var registrationId: String
    public var deviceId: String
    public var deviceToken: String
    public var os: DeviceOS
    public var osVersion: String?
    /// Live (unexpired) channels, sorted by name.
    public var channels: [ChannelName]
    /// The earliest expiration among the live channels, or nil when none expires.
    public var expiration: Timestamp?
    public var createdAt: Timestamp
    public var lastSeenAt: Timestamp
    public var isActive: Bool
    /// What the app has told Herald about the install, over all its calls.
    public var metadata: DeviceMetadata

    public init(
        registrationId: String, deviceId: String, deviceToken: String, os: DeviceOS, osVersion: String?,
        channels: [ChannelName], expiration: Timestamp?, createdAt: Timestamp, lastSeenAt: Timestamp,
        isActive: Bool, metadata: DeviceMetadata = DeviceMetadata()
    ) {
        self.registrationId = registrationId
        self.deviceId = deviceId
        self.deviceToken = deviceToken
        self.os = os
        self.osVersion = osVersion
        self.channels = channels
        self.expiration = expiration
        self.createdAt = createdAt
        self.lastSeenAt = lastSeenAt
        self.isActive = isActive
        self.metadata = metadata
    }
}

/// What a successful register call returns.
public struct RegistrationReceipt: Sendable, Equatable {
    /// Stable for this app + deviceId across calls.
    public var registrationId: String
    /// One id per channel named in the call.
    public var channelRegistrationIds: [ChannelName: String]

    public init(registrationId: String, channelRegistrationIds: [ChannelName: String]) {
        self.registrationId = registrationId
        self.channelRegistrationIds = channelRegistrationIds
    }
}

/// A channel and how many live registrations it holds.
public struct ChannelSummary: Sendable, Equatable {
    public var name: ChannelName
    public var registrations: Int

    public init(name: ChannelName, registrations: Int) {
        self.name = name
        self.registrations = registrations
    }
}

/// One live registration of a channel, as fan-out pages through them by `cursor`.
public struct ChannelMember: Sendable, Equatable {
    /// Opaque, increasing key to resume paging after this member.
    public var cursor: Int64
    public var deviceId: String
    public var deviceToken: String
    public var os: DeviceOS
    public var expiration: Timestamp?

    public init(cursor: Int64, deviceId: String, deviceToken: String, os: DeviceOS, expiration: Timestamp?) {
        self.cursor = cursor
        self.deviceId = deviceId
        self.deviceToken = deviceToken
        self.os = os
        self.expiration = expiration
    }
}
