/// A push service Herald sends through. Each recipient goes to the one that serves its `os`: this is
/// the one routing rule, and the store (counts by provider, who deactivated a device) and the dispatcher
/// derive from it. A closed enum, one case per service: the services Herald speaks are compiled in
/// (each is a module with its client), so a case costs nothing an open registry would save, and every
/// `switch` over it tells a new service's author what else to fill in.
public enum PushProvider: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// Apple Push Notification service: IOS and OSX devices.
    case apns
    /// Firebase Cloud Messaging HTTP v1: ANDROID devices.
    case fcm
    /// Web Push (RFC 8030, 8291, 8292): WEB devices, each through its browser's push service.
    case webPush

    /// The provider that delivers to `os`, or nil when Herald has none for it (WP).
    public static func serving(_ os: DeviceOS) -> PushProvider? {
        switch os {
        case .ios, .osx: .apns
        case .android: .fcm
        case .web: .webPush
        case .wp: nil
        }
    }

    /// The systems this provider delivers to.
    public var systems: [DeviceOS] { DeviceOS.allCases.filter { Self.serving($0) == self } }

    /// Its key in a message's status (`deliveries.byPlatform`): the lower-cased name of the first system
    /// it serves (`ios` for APNs, `android` for FCM, `web` for Web Push). A new provider's counts appear
    /// there by this rule.
    public var platformKey: String { (systems.first?.rawValue ?? rawValue).lowercased() }

    /// The metric label, the stored name (`deactivated_by`, counts) and the configuration key
    /// (`apps[].apns`, `apps[].fcm`, `apps[].webPush`).
    public var description: String { rawValue }

    /// How an operator names it.
    public var displayName: String {
        switch self {
        case .apns: "APNs"
        case .fcm: "FCM"
        case .webPush: "Web Push"
        }
    }
}
