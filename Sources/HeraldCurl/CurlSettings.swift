/// What every easy handle of one loop is set up with.
public struct CurlSettings: Sendable {
    /// HTTP/2 with prior knowledge over plain TCP (test servers); otherwise HTTP/2 over TLS 1.2+.
    public var cleartext: Bool
    public var caFile: String?
    public var certificateFile: String?
    public var certificateType: String = "PEM"
    public var privateKeyFile: String?
    public var passphrase: String?
    public var connectTimeoutMilliseconds: Int
    public var requestTimeoutMilliseconds: Int
    /// Response headers to keep (lower-case names, e.g. `apns-id`); the others cost nothing.
    public var capturedHeaders: [String] = []
    /// At most this many bytes of a response body are kept; a longer one fails the transfer.
    public var maxResponseBytes = 16 * 1024

    public init(
        cleartext: Bool, caFile: String? = nil, connectTimeoutMilliseconds: Int, requestTimeoutMilliseconds: Int,
        capturedHeaders: [String] = []
    ) {
        self.cleartext = cleartext
        self.caFile = caFile
        self.connectTimeoutMilliseconds = connectTimeoutMilliseconds
        self.requestTimeoutMilliseconds = requestTimeoutMilliseconds
        self.capturedHeaders = capturedHeaders
    }
}
