import HeraldCore
import HeraldCurl

/// Everything one FCM client needs: which project, where FCM is, and how wide to multiplex.
public struct FCMClientConfiguration: Sendable {
    public var serviceAccount: FCMServiceAccount
    /// FCM's base URL without a path; a mock's for tests (`http://` speaks cleartext HTTP/2).
    public var baseURL: String
    /// A CA file to trust for FCM and the token endpoint (a mock's); nil for the system's.
    public var caFile: String?
    /// HTTP/2 connections to open at most.
    public var connections: Int
    /// Concurrent streams per connection (Google's front ends allow 100).
    public var streamsPerConnection: Int
    public var connectTimeout: Duration
    /// From when the client hands the send to curl to its answer: a send curl holds for a free stream
    /// spends it too, one waiting in the client for room in the window (`maxInFlight`) does not.
    /// The same bound applies to token requests.
    public var requestTimeout: Duration
    /// A connection idle longer than this is closed and the next send opens a new one (`ConnectionIdle`).
    public var idleReconnect: Duration
    /// Where token expiry and the assertion's `iat` come from.
    public var clock: any WallClock

    public static let defaultBaseURL = "https://fcm.googleapis.com"
    /// Google's front ends allow 100 streams on a connection.
    public static let width = ConnectionWidth(connections: 1...64, defaultConnections: 4, streams: 1...1000, defaultStreams: 100)

    public init(
        serviceAccount: FCMServiceAccount, baseURL: String = FCMClientConfiguration.defaultBaseURL, caFile: String? = nil,
        connections: Int = width.defaultConnections, streamsPerConnection: Int = width.defaultStreams,
        connectTimeout: Duration = .seconds(10),
        requestTimeout: Duration = .seconds(30), idleReconnect: Duration = .seconds(ConnectionIdle.defaultSeconds),
        clock: any WallClock = SystemClock()
    ) {
        self.idleReconnect = idleReconnect
        self.serviceAccount = serviceAccount
        self.baseURL = baseURL
        self.caFile = caFile
        self.connections = connections
        self.streamsPerConnection = streamsPerConnection
        self.connectTimeout = connectTimeout
        self.requestTimeout = requestTimeout
        self.clock = clock
    }

    /// Most messages submitted and not yet completed at once: the connections' streams and as many again
    /// waiting in the client (`CurlMultiLoop.maxInFlight`).
    public var maxInFlight: Int { CurlMultiLoop.maxInFlight(connections: connections, streamsPerConnection: streamsPerConnection) }

    /// The base URL without a trailing slash.
    var base: String { baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL }

    /// Where this project's messages are posted.
    var sendURL: String { base + "/v1/projects/" + serviceAccount.projectID + "/messages:send" }

    func validated() throws(FCMConfigurationError) -> CurlOptions {
        if let problem = Self.width.problem(connections: connections, streams: streamsPerConnection, service: "FCM") {
            throw FCMConfigurationError(problem)
        }
        let lower = base.lowercased()
        guard lower.hasPrefix("https://") || lower.hasPrefix("http://") else {
            throw FCMConfigurationError("the FCM URL must start with https:// (or http:// for a cleartext test server): \(baseURL)")
        }
        let projectIsPlain = serviceAccount.projectID.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x61 && byte <= 0x7a) || (byte >= 0x41 && byte <= 0x5a) || byte == 0x2d
                || byte == 0x2e || byte == 0x5f || byte == 0x3a
        }
        guard projectIsPlain else {
            throw FCMConfigurationError("the service account's project_id has characters a URL path cannot carry")
        }
        if let caFile, !CurlOptions.isReadable(caFile) { throw FCMConfigurationError("cannot read the FCM CA file \(caFile)") }
        var options = CurlOptions(
            cleartext: lower.hasPrefix("http://"), caFile: caFile, connectTimeoutMilliseconds: CurlOptions.milliseconds(connectTimeout),
            requestTimeoutMilliseconds: CurlOptions.milliseconds(requestTimeout), capturedHeaders: ["retry-after"])
        options.maxIdleSeconds = CurlOptions.seconds(idleReconnect)
        return options
    }
}
