import HeraldCore
import HeraldCurl
import HeraldSigning

/// The last request header list, reused while notifications share every header: a fan-out sends
/// one message to many tokens, so the lines (and curl's list of them) are built once per message
/// and provider token instead of once per device. A notification with its own `apns-id` gets a
/// list of its own.
final class HeaderListCache: Sendable {
    private struct Key: Hashable {
        var pushType: APNsPushType
        var topic: String
        var priority: APNsPriority?
        var expiration: Int64?
        var collapseID: String?
        var tokenIssuedAt: Int64?
    }

    private let last = Locked<(key: Key, list: CurlHeaderList)?>(nil)

    /// The header list for `notification` sent with `token`.
    func list(for notification: APNsNotification, token: APNsProviderToken.Issued?) -> CurlHeaderList {
        guard notification.apnsID == nil else { return Self.build(notification, token) }
        let key = Key(
            pushType: notification.pushType, topic: notification.topic, priority: notification.priority,
            expiration: notification.expiration, collapseID: notification.collapseID, tokenIssuedAt: token?.issuedAt)
        if let cached = last.withLock({ $0 }), cached.key == key { return cached.list }
        let list = Self.build(notification, token)
        last.withLock { $0 = (key, list) }
        return list
    }

    private static func build(_ notification: APNsNotification, _ token: APNsProviderToken.Issued?) -> CurlHeaderList {
        var lines = notification.headerLines
        lines.append("content-type: application/json")
        lines.append("Accept:")  // curl's default "Accept: */*" means nothing to APNs
        if let token { lines.append(token.headerLine) }
        return CurlHeaderList(lines)
    }
}
