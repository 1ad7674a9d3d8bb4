import CCurl
import Dispatch

/// Posts one event to a receiver with libcurl's easy interface, on a thread of its own so the blocking
/// transfer never holds a Swift concurrency thread. Webhook traffic is a few events per change, not a
/// fan-out, so one transfer per event (with curl's connection reuse lost) is enough.
public struct WebhookSender: Sendable {
    /// How one POST ended.
    public enum Result: Sendable, Equatable {
        /// The receiver answered with this status (2xx acknowledges the event).
        case answered(status: Int, retryAfterSeconds: Int64?)
        /// No answer: connection, TLS or timeout failure, in curl's words.
        case failed(String)

        public var acknowledged: Bool {
            if case .answered(let status, _) = self { return (200..<300).contains(status) }
            return false
        }
    }

    private static let queue = DispatchQueue(label: "herald.webhooks", attributes: .concurrent)
    private static let initialized: Void = { _ = curl_global_init(ccurl_global_all()) }()

    public init() { _ = Self.initialized }

    public func post(_ body: [UInt8], headers: [String], to target: WebhookTarget) async -> Result {
        await withCheckedContinuation { continuation in
            Self.queue.async { continuation.resume(returning: Self.perform(body, headers: headers, target: target)) }
        }
    }

    private static func perform(_ body: [UInt8], headers: [String], target: WebhookTarget) -> Result {
        // What the handle points at is made first and freed last: defers run in reverse, so the handle
        // is cleaned up while the header list, error buffer and answer it refers to are still alive.
        var list: UnsafeMutablePointer<curl_slist>?
        for header in headers + ["Content-Type: application/json", "User-Agent: Herald", "Expect:"] {
            list = curl_slist_append(list, header)
        }
        defer { curl_slist_free_all(list) }
        let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        defer { errorBuffer.deallocate() }
        let answer = Answer()
        defer { withExtendedLifetime(answer) {} }
        let me = Unmanaged.passUnretained(answer).toOpaque()
        guard let handle = curl_easy_init() else { return .failed("curl_easy_init failed") }
        defer { curl_easy_cleanup(handle) }
        return body.withUnsafeBufferPointer { bytes -> Result in
            var ok = true
            ok = ok && ccurl_easy_setopt_string(handle, CURLOPT_URL, target.url) == CURLE_OK
            ok = ok && ccurl_easy_setopt_pointer(handle, CURLOPT_ERRORBUFFER, errorBuffer) == CURLE_OK
            ok = ok && ccurl_easy_setopt_long(handle, CURLOPT_NOSIGNAL, 1) == CURLE_OK
            ok = ok && ccurl_easy_setopt_long(handle, CURLOPT_POST, 1) == CURLE_OK
            ok =
                ok
                && ccurl_easy_setopt_pointer(handle, CURLOPT_POSTFIELDS, UnsafeMutableRawPointer(mutating: bytes.baseAddress)) == CURLE_OK
            ok = ok && ccurl_easy_setopt_off_t(handle, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(bytes.count)) == CURLE_OK
            ok = ok && ccurl_easy_setopt_slist(handle, CURLOPT_HTTPHEADER, list) == CURLE_OK
            ok = ok && ccurl_easy_setopt_long(handle, CURLOPT_TIMEOUT_MS, target.timeoutMilliseconds) == CURLE_OK
            ok = ok && ccurl_easy_setopt_long(handle, CURLOPT_CONNECTTIMEOUT_MS, min(target.timeoutMilliseconds, 5_000)) == CURLE_OK
            // Only the web's two schemes, and never a redirect: an event goes where it was configured to.
            ok = ok && ccurl_easy_setopt_string(handle, CURLOPT_PROTOCOLS_STR, "http,https") == CURLE_OK
            ok = ok && ccurl_easy_setopt_long(handle, CURLOPT_FOLLOWLOCATION, 0) == CURLE_OK
            ok = ok && ccurl_easy_setopt_data_callback(handle, CURLOPT_WRITEFUNCTION, webhookDiscard) == CURLE_OK
            ok = ok && ccurl_easy_setopt_data_callback(handle, CURLOPT_HEADERFUNCTION, webhookHeader) == CURLE_OK
            ok = ok && ccurl_easy_setopt_pointer(handle, CURLOPT_HEADERDATA, me) == CURLE_OK
            if let caFile = target.caFile { ok = ok && ccurl_easy_setopt_string(handle, CURLOPT_CAINFO, caFile) == CURLE_OK }
            guard ok else { return .failed("libcurl refused an option") }
            let code = withExtendedLifetime(answer) { curl_easy_perform(handle) }
            guard code == CURLE_OK else {
                let detail = String(cString: errorBuffer)
                return .failed(detail.isEmpty ? String(cString: curl_easy_strerror(code)) : detail)
            }
            var status = 0
            _ = ccurl_easy_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &status)
            return .answered(status: status, retryAfterSeconds: answer.retryAfterSeconds)
        }
    }
}

/// What the header callback found; only the transfer's own thread touches it.
private final class Answer {
    var retryAfterSeconds: Int64?
}

private func webhookDiscard(data: UnsafeMutablePointer<CChar>?, size: Int, count: Int, user: UnsafeMutableRawPointer?) -> Int {
    size * count
}

private func webhookHeader(data: UnsafeMutablePointer<CChar>?, size: Int, count: Int, user: UnsafeMutableRawPointer?) -> Int {
    let length = size * count
    guard let data, let user else { return length }
    let line = String(decoding: UnsafeRawBufferPointer(start: data, count: length), as: UTF8.self)
    let prefix = "retry-after:"
    if line.lowercased().hasPrefix(prefix) {
        // Seconds only; the HTTP-date form is left to the backoff.
        let value = line.dropFirst(prefix.count).filter { !$0.isWhitespace }
        Unmanaged<Answer>.fromOpaque(user).takeUnretainedValue().retryAfterSeconds = Int64(value)
    }
    return length
}
