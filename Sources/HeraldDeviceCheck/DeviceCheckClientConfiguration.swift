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

    /// DeviceCheck traffic is a call per device check, not a fan-out: one connection is plenty.
    public static let width = ConnectionWidth(connections: 1...16, defaultConnections: 1, streams: 1...1000, defaultStreams: 100)

    public init(
        environment: DeviceCheckEnvironment, key: AppleSigningKey, connections: Int = width.defaultConnections,
        streamsPerConnection: Int = width.defaultStreams,
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

    func validated() throws(DeviceCheckConfigurationError) -> CurlOptions {
        if let problem = Self.width.problem(connections: connections, streams: streamsPerConnection, service: "DeviceCheck") {
            throw DeviceCheckConfigurationError(problem)
        }
        let base = environment.baseURL.lowercased()
        guard base.hasPrefix("https://") || base.hasPrefix("http://") else {
            throw DeviceCheckConfigurationError(
                "the DeviceCheck URL must start with https:// (or http:// for a cleartext test server): \(environment.baseURL)")
        }
        if let caFile = environment.caFile, !CurlOptions.isReadable(caFile) {
            throw DeviceCheckConfigurationError("cannot read the CA file \(caFile)")
        }
        return CurlOptions(
            cleartext: environment.isCleartext, caFile: environment.caFile,
            connectTimeoutMilliseconds: CurlOptions.milliseconds(connectTimeout),
            requestTimeoutMilliseconds: CurlOptions.milliseconds(requestTimeout))
    }
}
