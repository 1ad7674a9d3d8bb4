import CCurl
import HeraldCore

/// One HTTP request for the loop to run (a POST of `body`).
public struct CurlJob: Sendable {
    public var url: String
    public var headers: CurlHeaderList
    public var body: CurlBody
    /// Called once, on the loop thread, when the transfer ends; must return quickly.
    public var completion: @Sendable (CurlCompletion) -> Void
    /// Set when curl gave up retrying it on a handle that had served other transfers: the lane sends it
    /// again on a handle made for it (see `CurlEasy.curlGaveUpOnRetriesOfEarlierTransfers`).
    var needsNewHandle = false

    public init(url: String, headers: CurlHeaderList, body: CurlBody, completion: @escaping @Sendable (CurlCompletion) -> Void) {
        self.url = url
        self.headers = headers
        self.body = body
        self.completion = completion
    }
}

/// How a transfer ended, as curl reports it.
public struct CurlCompletion: Sendable {
    /// CURLE_OK (0) when a response arrived, whatever its status; -1 when the loop stopped first.
    public var code: Int
    public var status: Int
    public var body: [UInt8]
    /// The response headers named in `CurlOptions.capturedHeaders` that arrived, by lower-case name.
    public var headers: CurlCapturedHeaders
    public var errorText: String

    public init(code: Int, status: Int, body: [UInt8], headers: CurlCapturedHeaders = [:], errorText: String) {
        self.code = code
        self.status = status
        self.body = body
        self.headers = headers
        self.errorText = errorText
    }
}

/// Cheap counters a test or benchmark reads to prove handles are not leaked.
public struct CurlCounters: Sendable, Hashable {
    /// Easy handles alive (in flight or idle in the pool).
    public var easyHandles: Int
    /// Transfers currently added to the multi handle.
    public var inFlight: Int
    /// Jobs waiting for the loop thread.
    public var queued: Int
    /// Transfers completed since start.
    public var completed: Int
    /// Rounds of the loop (perform + poll) since start: completed ÷ rounds is the batching.
    public var rounds: Int = 0
    /// Sockets curl has open (its connections to the service).
    public var connections: Int = 0
    /// Connections shut down for answering nothing for a whole request timeout (see `CurlLane`).
    public var abandonedConnections: Int = 0
    /// Transfers sent again on a new easy handle after curl gave up retrying them (see `CurlLane`).
    public var sentAgain: Int = 0

    public init(
        easyHandles: Int, inFlight: Int, queued: Int, completed: Int, rounds: Int = 0, connections: Int = 0,
        abandonedConnections: Int = 0, sentAgain: Int = 0
    ) {
        self.connections = connections
        self.abandonedConnections = abandonedConnections
        self.sentAgain = sentAgain
        self.easyHandles = easyHandles
        self.inFlight = inFlight
        self.queued = queued
        self.completed = completed
        self.rounds = rounds
    }
}

extension CurlCounters {
    /// What a push client says of its connections (`PushClient.connections`).
    public var clientConnections: ClientConnections {
        ClientConnections(open: connections, inFlight: inFlight, replaced: abandonedConnections)
    }
}

/// libcurl cannot be set up as asked (no HTTP/2, an option refused, out of memory).
public struct CurlConfigurationError: Error, Sendable, Hashable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
