/// The platforms Backendless knows. Sent case-insensitively, stored and answered upper-case.
public enum DeviceOS: String, Sendable, CaseIterable, Codable {
    case ios = "IOS"
    case osx = "OSX"
    case android = "ANDROID"
    case wp = "WP"
    /// A browser, through Web Push: its token is the push subscription (`WebPushSubscription`).
    case web = "WEB"

    /// How people name it (the console's pages).
    public var displayName: String {
        switch self {
        case .ios: "iOS"
        case .osx: "macOS"
        case .android: "Android"
        case .wp: "Windows Phone"
        case .web: "Web"
        }
    }

    /// The systems some push service delivers to (in `PushProvider`'s order): the ones a page offers.
    public static var served: [DeviceOS] { PushProvider.allCases.flatMap(\.systems) }

    /// Apple platforms use hex APNs tokens.
    public var usesHexTokens: Bool { self == .ios || self == .osx }

    public init(parsing value: String) throws(HeraldFault) {
        guard let os = DeviceOS(rawValue: value.uppercased()) else {
            throw .invalidParameter("os", "expected one of \(DeviceOS.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        self = os
    }
}
