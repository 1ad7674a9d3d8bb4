/// A push client that can publish one payload to a channel its service fans out itself (APNs broadcast
/// channels for Live Activities): one request however many devices follow the channel.
public protocol ChannelBroadcasting: Sendable {
    func broadcast(_ broadcast: ChannelBroadcast) async -> BroadcastAnswer
}

/// One payload for one service channel.
public struct ChannelBroadcast: Sendable, Equatable {
    /// The service's channel id (APNs: base64).
    public var channelId: String
    /// The channel's message storage policy (APNs: 0 no message stored, 1 most recent message stored).
    public var storagePolicy: Int
    public var payload: [UInt8]
    public var priority: Int

    public init(channelId: String, storagePolicy: Int, payload: [UInt8], priority: Int) {
        self.channelId = channelId
        self.storagePolicy = storagePolicy
        self.payload = payload
        self.priority = priority
    }
}

/// What the service answered a broadcast.
public enum BroadcastAnswer: Sendable, Equatable {
    /// Accepted; `uniqueId` is what the service asks for in a support request (APNs: `apns-unique-id`).
    case sent(uniqueId: String?)
    /// Refused with the service's reason; `retryable` for throttling and the service's own failures.
    case rejected(reason: String, retryable: Bool)
    /// No answer (a connection or credentials failure); worth another try.
    case failed(String)
}
