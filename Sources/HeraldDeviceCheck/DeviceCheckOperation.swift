/// The three calls DeviceCheck offers, each a POST of JSON to its own path.
public enum DeviceCheckOperation: String, Sendable, Hashable, CaseIterable {
    /// Is the token from a genuine Apple device running the app?
    case validate = "validate_device_token"
    /// The device's two bits, or no state when they were never set.
    case query = "query_two_bits"
    /// Sets either or both bits.
    case update = "update_two_bits"

    var path: String { "/v1/" + rawValue }

    /// Herald's name for it: its route's last segment (`…/devicecheck/query`) and its metric label.
    public var name: String {
        switch self {
        case .validate: "validate"
        case .query: "query"
        case .update: "update"
        }
    }
}
