/// What APNs answered for one notification.
public struct APNsResponse: Sendable, Hashable {
    /// HTTP status: 200 on success.
    public var status: Int
    /// The `apns-id` header: ours if we sent one, else the one APNs made.
    public var apnsID: String?
    /// The `apns-unique-id` header (development environment only).
    public var apnsUniqueID: String?
    /// The error reason; nil for 200.
    public var reason: APNsReason?
    /// For 410: when APNs learned the token was no longer valid, in epoch milliseconds.
    public var timestamp: Int64?

    public init(status: Int, apnsID: String? = nil, apnsUniqueID: String? = nil, reason: APNsReason? = nil, timestamp: Int64? = nil) {
        self.status = status
        self.apnsID = apnsID
        self.apnsUniqueID = apnsUniqueID
        self.reason = reason
        self.timestamp = timestamp
    }
}
