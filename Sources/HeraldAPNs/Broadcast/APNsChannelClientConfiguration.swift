/// Where Apple's channel-management host is and how long to wait for it. Apple's hosts are separate
/// from the push gateway, on ports of their own; tests point `baseURL` at the mock's management host.
public struct APNsChannelClientConfiguration: Sendable, Hashable {
    public static let sandboxURL = "https://api-manage-broadcast.sandbox.push.apple.com:2195"
    public static let productionURL = "https://api-manage-broadcast.push.apple.com:2196"

    /// Without a trailing slash; `https://` (the client speaks HTTP/2 over TLS only).
    public var baseURL: String
    /// A CA to trust instead of the system's (tests).
    public var caFile: String?
    public var connectTimeout: Duration = .seconds(10)
    public var requestTimeout: Duration = .seconds(30)

    /// Apple's host for the environment: the sandbox host for `.development`, production's for
    /// `.production`; a `.custom` environment has no management host of its own, so it gets nil.
    public init?(environment: APNsEnvironment) {
        switch environment {
        case .development: self.init(baseURL: Self.sandboxURL)
        case .production: self.init(baseURL: Self.productionURL)
        case .custom: return nil
        }
    }

    public init(baseURL: String, caFile: String? = nil) {
        self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        self.caFile = caFile
    }
}
