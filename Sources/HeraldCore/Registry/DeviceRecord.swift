/// Everything the registry holds about one device, as the admin's `GET …/devices/{deviceId}` answers it.
public struct DeviceRecord: Sendable, Equatable {
    public struct Channel: Sendable, Equatable {
        public var name: ChannelName
        /// nil: never expires.
        public var expiration: Timestamp?

        public init(name: ChannelName, expiration: Timestamp?) {
            self.name = name
            self.expiration = expiration
        }
    }

    public var deviceId: String
    /// Empty until the device registers a token (a device first seen by a launch has none).
    public var deviceToken: String
    /// nil until the device registers.
    public var os: DeviceOS?
    public var osVersion: String?
    public var metadata: DeviceMetadata
    /// Live channels, by name.
    public var channels: [Channel]
    public var isActive: Bool
    public var inactiveReason: String?
    public var deactivatedBy: DeactivatedBy?
    public var launchCount: Int64
    public var firstLaunchAt: Timestamp?
    public var lastLaunchAt: Timestamp?
    public var createdAt: Timestamp
    public var lastSeenAt: Timestamp

    public init(
        deviceId: String, deviceToken: String, os: DeviceOS?, osVersion: String?, metadata: DeviceMetadata,
        channels: [Channel], isActive: Bool, inactiveReason: String?, deactivatedBy: DeactivatedBy?, launchCount: Int64,
        firstLaunchAt: Timestamp?, lastLaunchAt: Timestamp?, createdAt: Timestamp, lastSeenAt: Timestamp
    ) {
        self.deviceId = deviceId
        self.deviceToken = deviceToken
        self.os = os
        self.osVersion = osVersion
        self.metadata = metadata
        self.channels = channels
        self.isActive = isActive
        self.inactiveReason = inactiveReason
        self.deactivatedBy = deactivatedBy
        self.launchCount = launchCount
        self.firstLaunchAt = firstLaunchAt
        self.lastLaunchAt = lastLaunchAt
        self.createdAt = createdAt
        self.lastSeenAt = lastSeenAt
    }
}

/// One notification's final outcome for a device, as `GET …/devices/{deviceId}/deliveries` lists them.
public struct DeliveryEntry: Sendable, Equatable {
    /// Opaque and decreasing down the list.
    public var cursor: Int64
    public var messageId: String
    public var deliveredAt: Timestamp
    /// `sent`, `failed`, `tokenRemoved` or `tokenDeactivated`.
    public var outcome: String
    public var reason: String?
    /// The push template the message was sent with (nil: none, or the message was pruned meanwhile).
    public var templateName: String?

    public init(
        cursor: Int64, messageId: String, deliveredAt: Timestamp, outcome: String, reason: String?, templateName: String? = nil
    ) {
        self.cursor = cursor
        self.messageId = messageId
        self.deliveredAt = deliveredAt
        self.outcome = outcome
        self.reason = reason
        self.templateName = templateName
    }
}

/// One recorded launch, as `GET …/devices/{deviceId}/launches` lists them (newest first).
public struct LaunchEntry: Sendable, Equatable {
    /// Opaque and decreasing down the list: the next page starts after the last entry's.
    public var cursor: Int64
    public var launchedAt: Timestamp
    public var appVersion: String?
    public var appBuild: String?

    public init(cursor: Int64, launchedAt: Timestamp, appVersion: String?, appBuild: String?) {
        self.cursor = cursor
        self.launchedAt = launchedAt
        self.appVersion = appVersion
        self.appBuild = appBuild
    }
}
