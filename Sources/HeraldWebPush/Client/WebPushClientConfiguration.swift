import HeraldCore
import HeraldCurl

/// Everything one Web Push client needs: the app's VAPID key, which push services it may reach, and how
/// wide to multiplex to each.
public struct WebPushClientConfiguration: Sendable {
    public var vapidKey: VAPIDKey
    /// A CA file to trust for the push services (a mock's); nil for the system's.
    public var caFile: String?
    /// Which hosts a subscription's endpoint may name; checked again at every send, so a host the
    /// configuration no longer allows is not reached.
    public var hosts: WebPushSubscription.HostPolicy
    /// HTTP/2 connections to open at most to one push service.
    public var connections: Int
    /// Concurrent streams per connection.
    public var streamsPerConnection: Int
    /// Push services sent to at once at most: connections are pooled per service, and this bounds them
    /// all (`connections` × `services`).
    public var services: Int
    public var connectTimeout: Duration
    /// From when the client hands the send to curl to its answer: a send curl holds for a free stream
    /// spends it too, one waiting in the client for room in the window (`maxInFlight`) does not.
    public var requestTimeout: Duration
    /// A connection idle longer than this is closed and the next send opens a new one (`ConnectionIdle`).
    public var idleReconnect: Duration
    /// Where the VAPID tokens' expiry comes from.
    public var clock: any WallClock

    /// The browsers' services (FCM for Chrome and Edge, Mozilla's autopush, Apple's, Microsoft's WNS)
    /// each allow at least 100 streams on a connection.
    public static let width = ConnectionWidth(connections: 1...64, defaultConnections: 4, streams: 1...1000, defaultStreams: 100)
    /// Four services serve today's browsers; room for a few more (a self-hosted autopush, a mock).
    public static let defaultServices = 8

    public init(
        vapidKey: VAPIDKey, caFile: String? = nil, hosts: WebPushSubscription.HostPolicy = WebPushSubscription.HostPolicy(),
        connections: Int = width.defaultConnections, streamsPerConnection: Int = width.defaultStreams,
        services: Int = defaultServices, connectTimeout: Duration = .seconds(10), requestTimeout: Duration = .seconds(30),
        idleReconnect: Duration = .seconds(ConnectionIdle.defaultSeconds), clock: any WallClock = SystemClock()
    ) {
        self.idleReconnect = idleReconnect
        self.vapidKey = vapidKey
        self.caFile = caFile
        self.hosts = hosts
        self.connections = connections
        self.streamsPerConnection = streamsPerConnection
        self.services = services
        self.connectTimeout = connectTimeout
        self.requestTimeout = requestTimeout
        self.clock = clock
    }

    /// Most notifications submitted and not yet completed at once: the connections' streams and as many again
    /// waiting in the client (`CurlMultiLoop.maxInFlight`).
    public var maxInFlight: Int { CurlMultiLoop.maxInFlight(connections: connections, streamsPerConnection: streamsPerConnection) }

    func validated() throws(WebPushConfigurationError) -> CurlOptions {
        if let problem = Self.width.problem(connections: connections, streams: streamsPerConnection, service: "Web Push") {
            throw WebPushConfigurationError(problem)
        }
        guard services >= 1 else { throw WebPushConfigurationError("Web Push needs room for at least one push service") }
        if let caFile, !CurlOptions.isReadable(caFile) { throw WebPushConfigurationError("cannot read the Web Push CA file \(caFile)") }
        var options = CurlOptions(
            cleartext: false, caFile: caFile, connectTimeoutMilliseconds: CurlOptions.milliseconds(connectTimeout),
            requestTimeoutMilliseconds: CurlOptions.milliseconds(requestTimeout), capturedHeaders: ["retry-after"])
        options.maxIdleSeconds = CurlOptions.seconds(idleReconnect)
        return options
    }
}

/// The Web Push settings cannot be used.
public struct WebPushConfigurationError: Error, Sendable, Hashable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
