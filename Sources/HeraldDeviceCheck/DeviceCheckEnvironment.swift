/// Which DeviceCheck service an app's tokens go to. A token from a development build of the app is
/// only known to the development service.
public enum DeviceCheckEnvironment: Sendable, Equatable {
    case production
    case development
    /// Another address (the mock), with the CA that signed its certificate.
    case custom(url: String, caFile: String?)

    public var baseURL: String {
        switch self {
        case .production: "https://api.devicecheck.apple.com"
        case .development: "https://api.development.devicecheck.apple.com"
        case .custom(let url, _): url.hasSuffix("/") ? String(url.dropLast()) : url
        }
    }

    public var caFile: String? {
        if case .custom(_, let caFile) = self { return caFile }
        return nil
    }

    /// `http://`: HTTP/2 with prior knowledge, for a cleartext test server.
    var isCleartext: Bool { baseURL.lowercased().hasPrefix("http://") }
}
