import HeraldCore

/// What every easy handle of one loop is set up with.
public struct CurlOptions: Sendable {
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
    /// One stream per connection until the service accepts a request (a 2xx), and again after it refuses
    /// one (4xx, 5xx) or a connection is replaced: APNs allows one stream on a new connection until a
    /// request with a valid provider token succeeds, and lowers its limit to one after a rejected
    /// notification. Sending more then only earns `REFUSED_STREAM`s, which libcurl retries on a new
    /// connection. Off: the whole window at once.
    public var narrowUntilAccepted = false
    /// A connection idle (nothing sent or received) longer than this many seconds is not reused: the next
    /// send opens a new one (`CURLOPT_MAXAGE_CONN`).
    public var maxIdleSeconds = ConnectionIdle.defaultSeconds

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

extension CurlOptions {
    /// A timeout as curl takes it: whole milliseconds, at least 1 (0 would mean none).
    public static func milliseconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        return max(1, Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000))
    }

    /// A duration as curl takes it for `CURLOPT_MAXAGE_CONN`: whole seconds, at least 1.
    public static func seconds(_ duration: Duration) -> Int {
        max(1, Int(duration.components.seconds))
    }

    /// Whether this process can open `path` for reading (a CA, certificate or key file), checked when a
    /// client is configured so a wrong path is one line at start-up rather than a TLS error per request.
    public static func isReadable(_ path: String) -> Bool {
        guard let handle = fopen(path, "r") else { return false }
        fclose(handle)
        return true
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
