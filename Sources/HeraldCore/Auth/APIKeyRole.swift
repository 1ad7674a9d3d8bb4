/// What an API key may do. Roles are ordered: each one can do everything the ones before it can.
public enum APIKeyRole: String, Sendable, Codable, CaseIterable, Comparable {
    /// Register, read and unregister devices.
    case client
    /// Also publish, read message status, cancel, administer channels.
    case server
    /// Also run operations: sweeps, device activation, listings.
    case admin

    private var rank: Int {
        switch self {
        case .client: 0
        case .server: 1
        case .admin: 2
        }
    }

    public static func < (lhs: APIKeyRole, rhs: APIKeyRole) -> Bool { lhs.rank < rhs.rank }
}
