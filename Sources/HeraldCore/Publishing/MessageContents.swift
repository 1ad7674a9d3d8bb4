import Foundation

/// What each push service receives for one message, built once when the message is accepted (so a
/// message that was accepted can always be sent) and stored with it. A provider's content is nil when
/// the message has nothing for that service.
public struct MessageContents: Sendable, Hashable, Codable {
    /// The APNs payload and request headers (IOS and OSX devices).
    public var apns: APNsContent?
    /// The FCM HTTP v1 message around each device's token (ANDROID devices).
    public var fcm: FCMContent?
    /// The plaintext and headers each browser's push service receives (WEB devices); nil in a message
    /// stored before Herald spoke Web Push.
    public var webPush: WebPushContent?

    public init(apns: APNsContent?, fcm: FCMContent? = nil, webPush: WebPushContent? = nil) {
        self.apns = apns
        self.fcm = fcm
        self.webPush = webPush
    }

    /// Maps a published message and its headers for every provider; throws what the mapping throws
    /// (5041 when nothing would show or wake the app on a platform of `broadcast`, 8008 for a header a
    /// service would refuse, 8000 over a service's size limit).
    public init(message: JSONValue, headers: [String: JSONValue], broadcast: PushBroadcast = .all) throws(HeraldFault) {
        // Every service's content is built, whatever the broadcast: a header any service would refuse is
        // refused at publish, and a message waiting in the store can go to a device that registers
        // meanwhile. Only "nothing to show" on APNs (5041) is let go when the broadcast has no Apple
        // platform: a data message for browsers or Android owes Apple devices no alert.
        do {
            apns = try APNsContent(message: message, headers: headers)
        } catch  where error.code == 5041 && !broadcast.includes(.ios) && !broadcast.includes(.osx) {
            apns = nil
        }
        fcm = try FCMContent(message: message, headers: headers)
        webPush = try WebPushContent(message: message, headers: headers)
    }

    /// Headers a service's mapping consumes (its prefix, or APNs's own names): the others are custom
    /// headers, which each service passes on (APNs as payload keys, FCM and Web Push as `data`).
    static func isMapped(_ name: String) -> Bool {
        mappedPrefixes.contains { name.hasPrefix($0) }
            || ["apns-push-type", "apns-priority", "apns-expiration", "apns-collapse-id"].contains(name)
    }

    /// One per platform's headers; `wp-` is Backendless's Windows Phone, which Herald does not deliver to.
    static let mappedPrefixes = ["ios-", "android-", "wp-", "web-"]

    /// The JSON the store keeps (keys sorted, so equal contents give equal text).
    public func encoded() -> String { SortedJSON.text(self) }

    /// Reads what `encoded()` wrote.
    public init(decoding text: String) throws {
        self = try JSONDecoder().decode(MessageContents.self, from: Data(text.utf8))
    }
}
