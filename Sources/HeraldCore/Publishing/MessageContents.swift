import Foundation

/// What each push service receives for one message, built once when the message is accepted (so a
/// message that was accepted can always be sent) and stored with it. A provider's content is nil when
/// the message has nothing for that service.
public struct MessageContents: Sendable, Hashable, Codable {
    /// The APNs payload and request headers (IOS and OSX devices).
    public var apns: APNsContent?
    /// The FCM HTTP v1 message around each device's token (ANDROID devices).
    public var fcm: FCMContent?

    public init(apns: APNsContent?, fcm: FCMContent? = nil) {
        self.apns = apns
        self.fcm = fcm
    }

    /// Maps a published message and its headers for every provider; throws what the mapping throws
    /// (5041 when nothing would show or wake the app, 8008 for a header a service would refuse, 8000
    /// over a service's size limit).
    public init(message: JSONValue, headers: [String: JSONValue]) throws(HeraldFault) {
        // Both are always built, whatever the broadcast: a header either service would refuse is refused
        // at publish, and a message waiting in the store can go to a device that registers meanwhile.
        apns = try APNsContent(message: message, headers: headers)
        fcm = try FCMContent(message: message, headers: headers)
    }

    /// The JSON the store keeps (keys sorted, so equal contents give equal text).
    public func encoded() -> String { SortedJSON.text(self) }

    /// Reads what `encoded()` wrote.
    public init(decoding text: String) throws {
        self = try JSONDecoder().decode(MessageContents.self, from: Data(text.utf8))
    }
}
