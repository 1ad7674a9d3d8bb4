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
    /// Why `apns` is nil though the broadcast names Apple devices: the message has nothing an Apple
    /// device can show or wake for (an object message without `ios-*` headers, which FCM and Web Push
    /// carry as data). Those devices are not sent to, and a message's status gives this as the reason.
    public var apnsSkipped: String?

    public init(apns: APNsContent?, fcm: FCMContent? = nil, webPush: WebPushContent? = nil, apnsSkipped: String? = nil) {
        self.apns = apns
        self.fcm = fcm
        self.webPush = webPush
        self.apnsSkipped = apnsSkipped
    }

    /// Maps a published message and its headers for every provider; throws what the mapping throws
    /// (8008 for a header a service would refuse, 8000 over a service's size limit). APNs's "nothing to
    /// show" (5041) is not thrown: `apns` is nil and, when `broadcast` has Apple platforms, `apnsSkipped`
    /// says why (`PublishRequest` refuses a push-only publish that then reaches no platform at all).
    public init(message: JSONValue, headers: [String: JSONValue], broadcast: PushBroadcast = .all) throws(HeraldFault) {
        // Every service's content is built, whatever the broadcast: a header any service would refuse is
        // refused at publish, and a message waiting in the store can go to a device that registers
        // meanwhile. A data message for subscribers, browsers or Android owes Apple devices no alert.
        do {
            apns = try APNsContent(message: message, headers: headers)
        } catch  where error.code == 5041 {
            apns = nil
            if broadcast.includes(.ios) || broadcast.includes(.osx) { apnsSkipped = APNsContent.nothingToShow }
        }
        fcm = try FCMContent(message: message, headers: headers)
        webPush = try WebPushContent(message: message, headers: headers)
    }

    /// Why a publish that only pushes would reach no device of `broadcast`: every platform it names is
    /// one whose content is skipped (Apple platforms only, with nothing to show). nil when some platform
    /// gets a push, or none is skipped.
    public func unsendable(to broadcast: PushBroadcast) -> String? {
        guard let apnsSkipped else { return nil }
        let others: [(PushBroadcast, Bool)] = [(.android, fcm != nil), (.web, webPush != nil)]
        return others.contains { broadcast.contains($0.0) && $0.1 } ? nil : apnsSkipped
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
