import HeraldCurl
import HeraldSigning

/// APNs's request header lists, through the shared cache: the key is every header a notification
/// sets and the provider token's issue time. A notification with its own `apns-id` gets a list of
/// its own.
struct APNsHeaderLists: Sendable {
    private struct Key: Hashable, Sendable {
        var pushType: APNsPushType
        var topic: String
        var priority: APNsPriority?
        var expiration: Int64?
        var collapseID: String?
        var tokenIssuedAt: Int64?
    }

    private let cache = CurlHeaderListCache<Key>()

    /// The header list for `notification` sent with `token`.
    func list(for notification: APNsNotification, token: APNsProviderToken.Issued?) -> CurlHeaderList {
        guard notification.apnsID == nil else { return Self.build(notification, token) }
        let key = Key(
            pushType: notification.pushType, topic: notification.topic, priority: notification.priority,
            expiration: notification.expiration, collapseID: notification.collapseID, tokenIssuedAt: token?.issuedAt)
        return cache.list(for: key) { Self.build(notification, token) }
    }

    private static func build(_ notification: APNsNotification, _ token: APNsProviderToken.Issued?) -> CurlHeaderList {
        var lines = notification.headerLines
        lines.append("content-type: application/json")
        lines.append("Accept:")  // curl's default "Accept: */*" means nothing to APNs
        if let token { lines.append(token.headerLine) }
        return CurlHeaderList(lines)
    }
}
