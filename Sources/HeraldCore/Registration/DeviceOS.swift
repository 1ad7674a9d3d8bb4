/// The platforms Backendless knows. Sent case-insensitively, stored and answered upper-case.
public enum DeviceOS: String, Sendable, CaseIterable, Codable {
    case ios = "IOS"
    case osx = "OSX"
    case android = "ANDROID"
    case wp = "WP"

    /// Apple platforms use hex APNs tokens.
    public var usesHexTokens: Bool { self == .ios || self == .osx }

    public init(parsing value: String) throws(HeraldFault) {
        guard let os = DeviceOS(rawValue: value.uppercased()) else {
            throw .invalidParameter("os", "expected one of IOS, OSX, ANDROID, WP")
        }
        self = os
    }
}
