/// An API key and what it may do. Keys are secrets: never log `key`.
public struct APIKey: Sendable, Equatable {
    public var key: String
    public var role: APIKeyRole

    public init(key: String, role: APIKeyRole) {
        self.key = key
        self.role = role
    }
}
