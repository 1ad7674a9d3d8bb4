/// Where a published message goes: APNs and the other push services, pub/sub subscribers, or both.
public enum PublishPolicy: String, Sendable, Codable, CaseIterable {
    case push = "PUSH"
    case pubsub = "PUBSUB"
    case both = "BOTH"

    /// Whether the message is pushed to devices (PUBSUB-only messages are stored, not pushed).
    public var pushes: Bool { self != .pubsub }

    /// Reads `publishPolicy` (or its legacy alias `pushPolicy`); absent means BOTH.
    static func parse(_ value: JSONValue?, property: String) throws(HeraldFault) -> PublishPolicy {
        switch value {
        case nil, .null: return .both
        case .string(let text):
            guard let policy = PublishPolicy(rawValue: text.uppercased()) else {
                throw .invalidParameter(property, "expected PUSH, PUBSUB or BOTH, got '\(text.prefix(32))'")
            }
            return policy
        case let other?: throw .invalidParameter(property, "expected PUSH, PUBSUB or BOTH, got \(other.typeName)")
        }
    }
}
