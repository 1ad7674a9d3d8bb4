import HeraldCore
import HeraldCurl

/// Everything one APNs client needs: where, who, and how wide to multiplex.
public struct APNsClientConfiguration: Sendable {
    public var environment: APNsEnvironment
    public var credentials: APNsCredentials
    /// HTTP/2 connections to open at most.
    public var connections: Int
    /// Concurrent streams per connection (APNs allows up to 1000; curl's own default is 100).
    public var streamsPerConnection: Int
    public var connectTimeout: Duration
    /// From when the client hands the send to curl to its answer: a send curl holds for a free stream
    /// spends it too, one waiting in the client for room in the window (`maxInFlight`) does not.
    public var requestTimeout: Duration
    /// A connection idle longer than this is closed and the next send opens a new one (`ConnectionIdle`).
    public var idleReconnect: Duration
    /// Where the provider token's `iat` comes from.
    public var clock: any WallClock

    /// APNs allows up to 1000 streams on a connection; two connections of 500 suit most apps.
    public static let width = ConnectionWidth(connections: 1...64, defaultConnections: 2, streams: 1...1000, defaultStreams: 500)

    public init(
        environment: APNsEnvironment, credentials: APNsCredentials, connections: Int = width.defaultConnections,
        streamsPerConnection: Int = width.defaultStreams, connectTimeout: Duration = .seconds(10),
        requestTimeout: Duration = .seconds(30), idleReconnect: Duration = .seconds(ConnectionIdle.defaultSeconds),
        clock: any WallClock = SystemClock()
    ) {
        self.idleReconnect = idleReconnect
        self.environment = environment
        self.credentials = credentials
        self.connections = connections
        self.streamsPerConnection = streamsPerConnection
        self.connectTimeout = connectTimeout
        self.requestTimeout = requestTimeout
        self.clock = clock
    }

    /// Most notifications submitted and not yet completed at once: the connections' streams and as many again
    /// waiting in the client (`CurlMultiLoop.maxInFlight`).
    public var maxInFlight: Int { CurlMultiLoop.maxInFlight(connections: connections, streamsPerConnection: streamsPerConnection) }

    func validated() throws(APNsConfigurationError) -> CurlOptions {
        if let problem = Self.width.problem(connections: connections, streams: streamsPerConnection, service: "APNs") {
            throw APNsConfigurationError(problem)
        }
        let base = environment.baseURL.lowercased()
        guard base.hasPrefix("https://") || base.hasPrefix("http://") else {
            throw APNsConfigurationError(
                "the APNs URL must start with https:// (or http:// for a cleartext test server): \(environment.baseURL)")
        }
        var settings = CurlOptions(
            cleartext: environment.isCleartext, caFile: environment.caFile,
            connectTimeoutMilliseconds: CurlOptions.milliseconds(connectTimeout),
            requestTimeoutMilliseconds: CurlOptions.milliseconds(requestTimeout),
            capturedHeaders: ["apns-id", "apns-unique-id", "apns-request-id"])
        // APNs's stream limits: one stream on a new connection until a request succeeds, and one after a
        // rejected notification until the next success (see CurlOptions).
        settings.narrowUntilAccepted = true
        settings.maxIdleSeconds = CurlOptions.seconds(idleReconnect)
        if let caFile = environment.caFile { try Self.requireReadable(caFile, what: "CA file") }
        if case .certificate(let certificate, let key, let passphrase) = credentials {
            if settings.cleartext {
                throw APNsConfigurationError("certificate auth needs an https:// APNs URL")
            }
            try Self.requireReadable(certificate, what: "certificate file")
            if let key { try Self.requireReadable(key, what: "private key file") }
            settings.certificateFile = certificate
            settings.privateKeyFile = key
            settings.passphrase = passphrase
            let lower = certificate.lowercased()
            settings.certificateType = lower.hasSuffix(".p12") || lower.hasSuffix(".pfx") ? "P12" : "PEM"
        }
        return settings
    }

    private static func requireReadable(_ path: String, what: String) throws(APNsConfigurationError) {
        guard CurlOptions.isReadable(path) else { throw APNsConfigurationError("cannot read the APNs \(what) \(path)") }
    }
}
