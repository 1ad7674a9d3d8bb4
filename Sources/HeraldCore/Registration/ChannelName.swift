/// A channel name that is known to be valid: 1–128 of `A–Z a–z 0–9 _ - . ~ :`, and not reserved.
public struct ChannelName: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let rawValue: String

    /// The channel a registration goes to when it names none (Backendless).
    public static let `default` = ChannelName(unchecked: "default")

    /// Names Backendless reserves for its own routes; `message:` prefixes message ids.
    static let reserved: Set<String> = ["registrations", "channels", "push", "pushtemplates", "email"]

    init(unchecked rawValue: String) { self.rawValue = rawValue }

    /// Validates a name; `property` names where it came from, for the 8000 message.
    public init(validating name: String, property: String = "channel") throws(HeraldFault) {
        try Limits.check(property, name, limit: Limits.channelName)
        if name.isEmpty { throw .invalidChannelName("the name is empty") }
        for scalar in name.unicodeScalars where !Self.isAllowed(scalar) {
            throw .invalidChannelName("'\(name)' contains '\(scalar)'; allowed are A-Z a-z 0-9 _ - . ~ :")
        }
        let lower = name.lowercased()
        if Self.reserved.contains(lower) || lower.hasPrefix("message:") {
            throw .invalidChannelName("'\(name)' is a reserved name")
        }
        self.rawValue = name
    }

    static func isAllowed(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "A"..."Z", "a"..."z", "0"..."9", "_", "-", ".", "~", ":": true
        default: false
        }
    }

    public static func < (lhs: ChannelName, rhs: ChannelName) -> Bool { lhs.rawValue < rhs.rawValue }

    public var description: String { rawValue }
}
