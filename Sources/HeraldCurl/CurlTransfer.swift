import CCurl
import Dispatch

/// One HTTP request made with libcurl's easy interface and nothing shared: for traffic that is a few
/// requests, not a fan-out (webhook events, `herald probe`, the tests' client). The blocking transfer
/// runs on a Dispatch worker thread, never on a Swift concurrency thread; curl owns its socket from
/// start to end (no `DispatchSource` watches it, unlike URLSession on Linux).
public struct CurlTransfer: Sendable {
    public var method: String
    public var url: String
    /// Whole header lines (`Name: value`); `Name:` removes a header curl would add.
    public var headers: [String]
    /// Sent as the request body (with its length) when not nil.
    public var body: [UInt8]?
    public var timeoutMilliseconds: Int
    public var connectTimeoutMilliseconds: Int
    public var caFile: String?
    /// Ignore proxies named by the environment (`http_proxy` and the like).
    public var ignoreProxies: Bool
    /// Response headers to keep, by lower-case name.
    public var capturedHeaders: [String]
    /// At most this many bytes of the answer's body are kept; the rest is read and dropped.
    public var maxResponseBytes: Int

    public init(
        method: String, url: String, headers: [String] = [], body: [UInt8]? = nil, timeoutMilliseconds: Int,
        connectTimeoutMilliseconds: Int? = nil, caFile: String? = nil, ignoreProxies: Bool = false,
        capturedHeaders: [String] = [], maxResponseBytes: Int = 1 << 20
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeoutMilliseconds = timeoutMilliseconds
        self.connectTimeoutMilliseconds = connectTimeoutMilliseconds ?? min(timeoutMilliseconds, 5_000)
        self.caFile = caFile
        self.ignoreProxies = ignoreProxies
        self.capturedHeaders = capturedHeaders.map { $0.lowercased() }
        self.maxResponseBytes = maxResponseBytes
    }

    /// An answer, whatever its status.
    public struct Response: Sendable, Equatable {
        public var status: Int
        public var body: [UInt8]
        /// The captured headers that arrived, by lower-case name.
        public var headers: [String: String]

        public init(status: Int, body: [UInt8], headers: [String: String] = [:]) {
            self.status = status
            self.body = body
            self.headers = headers
        }
    }

    /// No answer: a connection, TLS or timeout failure, in curl's words.
    public struct Failure: Error, Sendable, Equatable, CustomStringConvertible {
        public var code: Int
        public var message: String
        public var description: String { message }

        public init(code: Int, message: String) {
            self.code = code
            self.message = message
        }
    }

    private static let queue = DispatchQueue(label: "herald.curl.transfers", attributes: .concurrent)
    private static let initialized: Void = { _ = curl_global_init(ccurl_global_all()) }()

    public func perform() async -> Result<Response, Failure> {
        await withCheckedContinuation { continuation in
            perform { continuation.resume(returning: $0) }
        }
    }

    /// Runs the transfer on a Dispatch worker thread and calls `completion` there, once: for callers
    /// that are not async (a provider client whose sends wait for a token without holding a thread).
    public func perform(completion: @escaping @Sendable (Result<Response, Failure>) -> Void) {
        _ = Self.initialized
        Self.queue.async { completion(self.performBlocking()) }
    }

    /// Runs the transfer on the calling thread.
    public func performBlocking() -> Result<Response, Failure> {
        _ = Self.initialized
        // What the handle points at is made first and freed last: defers run in reverse, so the handle
        // is cleaned up while the header list, error buffer and answer it refers to are still alive.
        var list: UnsafeMutablePointer<curl_slist>?
        for header in headers { list = curl_slist_append(list, header) }
        defer { curl_slist_free_all(list) }
        let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        defer { errorBuffer.deallocate() }
        let answer = TransferAnswer(captured: capturedHeaders, limit: maxResponseBytes)
        let me = Unmanaged.passUnretained(answer).toOpaque()
        guard let handle = curl_easy_init() else { return .failure(Failure(code: -1, message: "curl_easy_init failed")) }
        defer { curl_easy_cleanup(handle) }
        let bytes = body ?? []
        return withExtendedLifetime(answer) {
            bytes.withUnsafeBufferPointer { buffer -> Result<Response, Failure> in
                var ok = true
                ok = ok && ccurl_easy_setopt_string(handle, CURLOPT_URL, url) == CURLE_OK
                ok = ok && ccurl_easy_setopt_pointer(handle, CURLOPT_ERRORBUFFER, errorBuffer) == CURLE_OK
                ok = ok && ccurl_easy_setopt_long(handle, CURLOPT_NOSIGNAL, 1) == CURLE_OK
                ok = ok && ccurl_easy_setopt_long(handle, CURLOPT_TIMEOUT_MS, timeoutMilliseconds) == CURLE_OK
                ok = ok && ccurl_easy_setopt_long(handle, CURLOPT_CONNECTTIMEOUT_MS, connectTimeoutMilliseconds) == CURLE_OK
                // Only the web's two schemes, and never a redirect: a request goes where it was aimed.
                ok = ok && ccurl_easy_setopt_string(handle, CURLOPT_PROTOCOLS_STR, "http,https") == CURLE_OK
                ok = ok && ccurl_easy_setopt_long(handle, CURLOPT_FOLLOWLOCATION, 0) == CURLE_OK
                if ignoreProxies { ok = ok && ccurl_easy_setopt_string(handle, CURLOPT_NOPROXY, "*") == CURLE_OK }
                if let caFile { ok = ok && ccurl_easy_setopt_string(handle, CURLOPT_CAINFO, caFile) == CURLE_OK }
                if body != nil {
                    ok = ok && ccurl_easy_setopt_long(handle, CURLOPT_POST, 1) == CURLE_OK
                    ok =
                        ok
                        && ccurl_easy_setopt_pointer(handle, CURLOPT_POSTFIELDS, UnsafeMutableRawPointer(mutating: buffer.baseAddress))
                            == CURLE_OK
                    ok = ok && ccurl_easy_setopt_off_t(handle, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(buffer.count)) == CURLE_OK
                }
                if method == "HEAD" {
                    ok = ok && ccurl_easy_setopt_long(handle, CURLOPT_NOBODY, 1) == CURLE_OK
                } else if method != (body == nil ? "GET" : "POST") {
                    ok = ok && ccurl_easy_setopt_string(handle, CURLOPT_CUSTOMREQUEST, method) == CURLE_OK
                }
                ok = ok && ccurl_easy_setopt_slist(handle, CURLOPT_HTTPHEADER, list) == CURLE_OK
                ok = ok && ccurl_easy_setopt_data_callback(handle, CURLOPT_WRITEFUNCTION, transferBody) == CURLE_OK
                ok = ok && ccurl_easy_setopt_pointer(handle, CURLOPT_WRITEDATA, me) == CURLE_OK
                if !capturedHeaders.isEmpty {
                    ok = ok && ccurl_easy_setopt_data_callback(handle, CURLOPT_HEADERFUNCTION, transferHeader) == CURLE_OK
                    ok = ok && ccurl_easy_setopt_pointer(handle, CURLOPT_HEADERDATA, me) == CURLE_OK
                }
                guard ok else { return .failure(Failure(code: -1, message: "libcurl refused an option")) }
                let code = curl_easy_perform(handle)
                guard code == CURLE_OK else {
                    let detail = String(cString: errorBuffer)
                    return .failure(
                        Failure(code: Int(code.rawValue), message: detail.isEmpty ? String(cString: curl_easy_strerror(code)) : detail))
                }
                var status = 0
                _ = ccurl_easy_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &status)
                return .success(Response(status: status, body: answer.body, headers: answer.headers))
            }
        }
    }
}

/// What the callbacks collect; only the transfer's own thread touches it.
private final class TransferAnswer {
    let captured: [String]
    let limit: Int
    var body: [UInt8] = []
    var headers: [String: String] = [:]

    init(captured: [String], limit: Int) {
        self.captured = captured
        self.limit = limit
    }
}

private func transferBody(data: UnsafeMutablePointer<CChar>?, size: Int, count: Int, user: UnsafeMutableRawPointer?) -> Int {
    let length = size * count
    guard let data, let user else { return length }
    let answer = Unmanaged<TransferAnswer>.fromOpaque(user).takeUnretainedValue()
    let room = max(0, answer.limit - answer.body.count)
    if room > 0 { answer.body.append(contentsOf: UnsafeRawBufferPointer(start: data, count: min(room, length))) }
    return length
}

private func transferHeader(data: UnsafeMutablePointer<CChar>?, size: Int, count: Int, user: UnsafeMutableRawPointer?) -> Int {
    let length = size * count
    guard let data, let user else { return length }
    let line = String(decoding: UnsafeRawBufferPointer(start: data, count: length), as: UTF8.self)
    guard let colon = line.firstIndex(of: ":") else { return length }
    let name = line[..<colon].lowercased()
    let answer = Unmanaged<TransferAnswer>.fromOpaque(user).takeUnretainedValue()
    if answer.captured.contains(name) {
        var value = line[line.index(after: colon)...]
        while let first = value.first, first.isWhitespace { value.removeFirst() }
        while let last = value.last, last.isWhitespace { value.removeLast() }
        answer.headers[name] = String(value)
    }
    return length
}
