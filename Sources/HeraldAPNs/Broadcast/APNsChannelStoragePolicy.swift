/// A broadcast channel's `message-storage-policy`, fixed when the channel is made.
public enum APNsChannelStoragePolicy: Int, Sendable, Hashable, Codable {
    /// Nothing is stored: a higher publishing budget, for frequent updates (a match's score). Every
    /// broadcast on such a channel must carry `apns-expiration: 0`.
    case noMessageStored = 0
    /// The most recent message is kept for up to 8 hours, for infrequent updates.
    case mostRecentMessageStored = 1
}
