import Foundation

/// One notification for one device: the token, the headers APNs reads, and the payload.
public struct APNsNotification: Sendable {
    /// The device token as hex (any length; APNs tokens are no longer always 64 characters).
    public var deviceToken: String
    public var payload: APNsPayload
    public var pushType: APNsPushType
    /// The app's bundle id; the push type's suffix is added when the request is built.
    public var topic: String
    /// nil leaves APNs's default (immediate); background pushes must say `.powerConsiderate`.
    public var priority: APNsPriority?
    /// Epoch seconds after which APNs stops trying; 0 means try once and do not store.
    public var expiration: Int64?
    /// Notifications with the same collapse id replace each other on the device (≤ 64 bytes).
    public var collapseID: String?
    /// Our id for the notification, echoed back by APNs as `apns-id`.
    public var apnsID: UUID?

    public init(
        deviceToken: String, payload: APNsPayload, pushType: APNsPushType = .alert, topic: String,
        priority: APNsPriority? = nil, expiration: Int64? = nil, collapseID: String? = nil, apnsID: UUID? = nil
    ) {
        self.deviceToken = deviceToken
        self.payload = payload
        self.pushType = pushType
        self.topic = topic
        self.priority = priority
        self.expiration = expiration
        self.collapseID = collapseID
        self.apnsID = apnsID
    }

    /// The `apns-topic` header: the bundle id with the push type's suffix (not doubled if present).
    public var apnsTopic: String {
        let suffix = pushType.topicSuffix
        return suffix.isEmpty || topic.hasSuffix(suffix) ? topic : topic + suffix
    }

    /// The HTTP/2 request path.
    var path: String { Self.devicePath + deviceToken }

    /// What a send's path starts with, before the device token.
    static let devicePath = "/3/device/"

    /// The request headers other than authorization, as `name: value` lines for curl.
    var headerLines: [String] {
        var lines = ["apns-push-type: \(pushType.rawValue)", "apns-topic: \(apnsTopic)"]
        if let priority = priority ?? (pushType == .background ? .powerConsiderate : nil) {
            lines.append("apns-priority: \(priority.rawValue)")
        }
        if let expiration { lines.append("apns-expiration: \(expiration)") }
        if let collapseID { lines.append("apns-collapse-id: \(collapseID)") }
        if let apnsID { lines.append("apns-id: \(apnsID.uuidString.lowercased())") }
        return lines
    }
}
