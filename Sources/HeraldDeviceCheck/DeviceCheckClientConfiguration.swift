import HeraldCore
import HeraldCurl
import HeraldSigning

/// Everything one DeviceCheck client needs: where, which key, how wide, and how hard to retry.
public struct DeviceCheckClientConfiguration: Sendable {
    public var environment: DeviceCheckEnvironment
    /// The `.p8` key with the DeviceCheck capability (it may be the app's APNs key), with its ids: the
    /// bearer token is signed exactly as APNs's provider token is.
    public var key: AppleSigningKey
    public var connections: Int
    public var streamsPerConnection: Int
    public var connectTimeout: Duration
    /// One attempt, from queueing to answer.
    public var requestTimeout: Duration
    /// Attempts in all for 429, 5xx and no answer, and the delays between them.
    public var retry: Backoff
    /// Where the token's `iat` and each request's `timestamp` come from.
    public var clock: any WallClock

    public init(
        environment: DeviceCheckEnvironment, key: AppleSigningKey, connections: Int = 1, streamsPerConnection: Int = 100,
        connectTimeout: Duration = .seconds(10), requestTimeout: Duration = .seconds(10),
        retry: Backoff = Backoff(maxAttempts: 3, baseDelay: .milliseconds(200), maxDelay: .seconds(5)),
        clock: any WallClock = SystemClock()
    ) {
        self.environment = environment
        self.key = key
        self.connections = connections
        self.streamsPerConnection = streamsPerConnection
        self.connectTimeout = connectTimeout
        self.requestTimeout = requestTimeout
        self.retry = retry
        self.clock = clock
    }

    func validated() throws(DeviceCheckConfigurationError) -> CurlSettings {
        guard (1...16).contains(connections) else {
            throw DeviceCheckConfigurationError("DeviceCheck connections must be between 1 and 16, not \(connections)")
        }
        guard (1...1000).contains(streamsPerConnection) else {
            throw DeviceCheckConfigurationError(
                "DeviceCheck streams per connection must be between 1 and 1000, not \(streamsPerConnection)")
        }
        let base = environment.baseURL.lowercased()
        guard base.hasPrefix("https://") || base.hasPrefix("http://") else {
            throw DeviceCheckConfigurationError(
                "the DeviceCheck URL must start with https:// (or http:// for a cleartext test server): \(environment.baseURL)")
        }
        if let caFile = environment.caFile, !CurlSettings.isReadable(caFile) {
            throw DeviceCheckConfigurationError("cannot read the CA file \(caFile)")
        }
        return CurlSettings(
            cleartext: environment.isCleartext, caFile: environment.caFile,
            connectTimeoutMilliseconds: CurlSettings.milliseconds(connectTimeout),
            requestTimeoutMilliseconds: CurlSettings.milliseconds(requestTimeout))
    }
}
