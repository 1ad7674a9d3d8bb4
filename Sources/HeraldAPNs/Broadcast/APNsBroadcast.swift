/// One Live Activity broadcast: a payload published to a channel (`POST /4/broadcasts/apps/<bundle>` on
/// the ordinary APNs host), which APNs fans out to every activity subscribed to it. Built from the
/// channel's storage policy, so a no-message-stored channel always gets `apns-expiration: 0`.
public struct APNsBroadcast: Sendable {
    /// The plain bundle id (no `.push-type.liveactivity` suffix: APNs answers `TopicDisallowed`).
    public var bundleID: String
    public var channelID: String
    /// At most 5120 bytes; `aps.event` `update` or `end` (a broadcast cannot start an activity).
    public var payload: APNsPayload
    /// 10 immediate, 5 power-considerate, 1 low (never wakes the device; grouped into bursts).
    public var priority: APNsPriority
    /// `apns-expiration`, epoch seconds: 0 = try once, store nothing.
    public let expiration: Int64
    /// Our `apns-request-id` (a UUID); nil lets APNs make one.
    public var requestID: String?

    /// `expiresAt` (epoch seconds) counts only on a most-recent-message-stored channel, where it shortens
    /// the 8 hours Apple keeps the message; a no-message-stored channel takes only 0.
    public init(
        bundleID: String, channelID: String, payload: APNsPayload, storagePolicy: APNsChannelStoragePolicy,
        priority: APNsPriority = .immediate, expiresAt: Int64? = nil, requestID: String? = nil
    ) {
        self.bundleID = bundleID
        self.channelID = channelID
        self.payload = payload
        self.priority = priority
        self.expiration = storagePolicy == .noMessageStored ? 0 : max(0, expiresAt ?? 0)
        self.requestID = requestID
    }

    /// The request's path on the APNs host.
    var path: String { "/4/broadcasts/apps/\(bundleID)" }

    /// The header lines, without the provider token's. `apns-push-type` is lower case, as Apple's
    /// samples write it (its pages spell it three ways; APNs compares without case).
    var headerLines: [String] {
        var lines = [
            "apns-channel-id: \(channelID)", "apns-push-type: liveactivity", "apns-priority: \(priority.rawValue)",
            "apns-expiration: \(expiration)", "content-type: application/json", "Accept:",
        ]
        if let requestID { lines.append("apns-request-id: \(requestID)") }
        return lines
    }
}
