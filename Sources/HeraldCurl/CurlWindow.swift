/// How many transfers a `CurlLane` hands to curl at once, and the streams per connection curl may open
/// (`CURLMOPT_MAX_CONCURRENT_STREAMS`). A plain value on the lane's thread; the lane applies `curlStreams`.
///
/// With `narrowsUntilAccepted` (APNs's own limits): one stream per connection until a request is accepted
/// (2xx), again after a refusal (4xx, 5xx), and when a connection ends or starts. The narrow window holds
/// curl too: the sends already attached when a connection is replaced wait in curl for the new one, and
/// curl 7.88 puts up to 100 streams on a new connection before it has read the server's SETTINGS. Against
/// APNs's one stream on a new connection, all but one were refused, each refusal made curl give the
/// connection up, and the next one met the same burst (dozens of connections and sends failed in a trial).
///
/// Narrowing on a connection change comes before curl can use the new connection (its TLS handshake takes
/// rounds of its own) only for a lane with one connection, as every APNs lane has (`CurlMultiLoop`'s
/// `connectionsPerThread` is 1 unless a caller asks otherwise, and none does): the old connection has closed
/// before the new one opens, and curl makes the waiting sends wait until the new one is known to speak
/// HTTP/2, then applies the limit. With two connections to one host in a lane, curl 7.88 would put sends on
/// a connection still being set up without any limit, and the burst would come back. (The same curl option
/// is also the limit curl advertises for streams the server opens; push is off, so it changes nothing
/// there.) Widening does not release the sends waiting in curl at once: curl looks at them again when its
/// next transfer ends, a round trip later.
struct CurlWindow {
    /// Transfers attached at most once the service has accepted one on the connection.
    let full: Int
    /// One stream per connection.
    let narrow: Int
    /// Streams per connection once wide.
    let streams: Int
    let narrowsUntilAccepted: Bool
    /// The window now: `full`, or `narrow` until an acceptance.
    private(set) var size: Int
    /// Sockets opened plus sockets closed after the last round: a change means a connection ended or
    /// started.
    private var socketEventsSeen = 0

    init(connections: Int, streams: Int, narrowsUntilAccepted: Bool) {
        self.streams = streams
        full = connections * streams
        narrow = connections
        self.narrowsUntilAccepted = narrowsUntilAccepted
        size = narrowsUntilAccepted ? narrow : full
    }

    /// What curl's `CURLMOPT_MAX_CONCURRENT_STREAMS` should be now.
    var curlStreams: Int { size == full ? streams : 1 }

    /// After a round with `events` sockets opened plus closed since the loop started: whether a connection
    /// ended or started in it (then, narrowing, the window narrows).
    mutating func noteSocketEvents(_ events: Int) -> Bool {
        guard events != socketEventsSeen else { return false }
        socketEventsSeen = events
        if narrowsUntilAccepted { size = narrow }
        return true
    }

    /// After a completed transfer, narrowing: a 2xx widens (unless its round changed connections: it came
    /// on the old one), a 4xx or 5xx narrows.
    mutating func note(_ completion: CurlCompletion, connectionsChanged: Bool) {
        guard narrowsUntilAccepted, completion.code == 0 else { return }
        if (200..<300).contains(completion.status) {
            if !connectionsChanged { size = full }
        } else if completion.status >= 400 {
            size = narrow
        }
    }
}
