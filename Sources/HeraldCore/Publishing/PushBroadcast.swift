/// Which platforms a broadcast reaches (`pushBroadcast`): FOR_IOS|FOR_OSX as text, or the
/// Backendless integer mask IOS=1 ANDROID=2 WP=4 OSX=8, with Herald's WEB=16. Absent and FOR_ALL mean
/// every platform; a mask means its bits, so Backendless's ALL (15) leaves browsers out (31 is every one).
public struct PushBroadcast: OptionSet, Sendable, Hashable, Codable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    public static let ios = PushBroadcast(rawValue: 1)
    public static let android = PushBroadcast(rawValue: 2)
    public static let wp = PushBroadcast(rawValue: 4)
    public static let osx = PushBroadcast(rawValue: 8)
    public static let web = PushBroadcast(rawValue: 16)
    public static let all: PushBroadcast = [.ios, .android, .wp, .osx, .web]

    /// The bit of one system.
    public init(_ os: DeviceOS) {
        switch os {
        case .ios: self = .ios
        case .osx: self = .osx
        case .android: self = .android
        case .wp: self = .wp
        case .web: self = .web
        }
    }

    /// The bits of these systems.
    public init(_ systems: some Sequence<DeviceOS>) {
        self = systems.reduce(into: []) { $0.insert(PushBroadcast($1)) }
    }

    /// Whether a device of `os` is in the broadcast.
    public func includes(_ os: DeviceOS) -> Bool { contains(PushBroadcast(os)) }

    /// The largest mask: every bit.
    static let maxMask = Int64(all.rawValue)

    /// Reads `pushBroadcast`; absent means every platform.
    static func parse(_ value: JSONValue?) throws(HeraldFault) -> PushBroadcast {
        switch value {
        case nil, .null: return .all
        case .integer(let mask):
            guard (1...maxMask).contains(mask) else {
                throw .invalidParameter("pushBroadcast", "a mask must be 1…\(maxMask) (IOS=1 ANDROID=2 WP=4 OSX=8 WEB=16), got \(mask)")
            }
            return PushBroadcast(rawValue: Int(mask))
        case .string(let text):
            var result: PushBroadcast = []
            for part in text.split(separator: "|", omittingEmptySubsequences: false) {
                switch part.trimmingSpaces.uppercased() {
                case "FOR_IOS": result.insert(.ios)
                case "FOR_ANDROID": result.insert(.android)
                case "FOR_WP": result.insert(.wp)
                case "FOR_OSX": result.insert(.osx)
                case "FOR_WEB": result.insert(.web)
                case "FOR_ALL": result.formUnion(.all)
                default:
                    throw .invalidParameter(
                        "pushBroadcast",
                        "expected FOR_IOS, FOR_ANDROID, FOR_WP, FOR_OSX, FOR_WEB or FOR_ALL joined by '|', got '\(part.prefix(32))'"
                    )
                }
            }
            return result
        case let other?: throw .invalidParameter("pushBroadcast", "expected a string or an integer mask, got \(other.typeName)")
        }
    }
}

extension Substring {
    var trimmingSpaces: Substring {
        var text = self
        while text.first == " " { text.removeFirst() }
        while text.last == " " { text.removeLast() }
        return text
    }
}
