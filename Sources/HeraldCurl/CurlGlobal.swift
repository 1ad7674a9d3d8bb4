import CCurl

/// libcurl's process-wide setup, done once before the first handle.
public enum CurlGlobal {
    private static let once: Void = { _ = curl_global_init(ccurl_global_all()) }()
    public static func initialize() { _ = once }
    public static var version: String { String(cString: curl_version()) }
}
