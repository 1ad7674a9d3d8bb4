import CCurl
import Dispatch
import Foundation

/// A tiny HTTP client for talking to a spawned server: libcurl's easy interface, one blocking transfer on
/// a Dispatch worker thread per request, so no Swift concurrency thread waits on a socket.
///
/// Not `URLSession`: FoundationNetworking on Linux watches curl's sockets with `DispatchSource`s, and a
/// teardown race in that code (swift-corelibs-foundation #4791 and its successors) crashed the whole test
/// process with SIGSEGV inside libdispatch once in CI. Here curl owns its sockets from start to end.
public enum HTTP {
    private static let queue = DispatchQueue(label: "herald.tests.http", attributes: .concurrent)
    private static let initialized: Void = { _ = curl_global_init(ccurl_global_all()) }()

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    public static func send(_ method: String, _ url: URL, json: String? = nil, headers: [String: String] = [:]) async throws -> (
        status: Int, body: String
    ) {
        _ = initialized
        var lines = headers.map { "\($0.key): \($0.value)" }
        if json != nil, !headers.keys.contains(where: { $0.lowercased() == "content-type" }) {
            lines.append("Content-Type: application/json")
        }
        lines.append("Expect:")
        let request = lines
        let result: Result<(Int, String), Failure> = await withCheckedContinuation { continuation in
            queue.async {
                let body = json.map { Array($0.utf8) } ?? (["POST", "PUT", "PATCH"].contains(method) ? [] : nil)
                continuation.resume(returning: perform(method, url.absoluteString, body: body, headers: request))
            }
        }
        let (status, body) = try result.get()
        return (status, body)
    }

    private static func perform(_ method: String, _ url: String, body: [UInt8]?, headers: [String]) -> Result<(Int, String), Failure> {
        // What the handle points at is made first and freed last (defers run in reverse).
        var list: UnsafeMutablePointer<curl_slist>?
        for header in headers { list = curl_slist_append(list, header) }
        defer { curl_slist_free_all(list) }
        let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        defer { errorBuffer.deallocate() }
        let sink = Sink()
        let me = Unmanaged.passUnretained(sink).toOpaque()
        let bytes = body ?? []
        guard let handle = curl_easy_init() else { return .failure(Failure(description: "curl_easy_init failed")) }
        defer { curl_easy_cleanup(handle) }
        return withExtendedLifetime(sink) {
            bytes.withUnsafeBufferPointer { buffer -> Result<(Int, String), Failure> in
                var ok = true
                ok = ok && ccurl_easy_setopt_string(handle, CURLOPT_URL, url) == CURLE_OK
                ok = ok && ccurl_easy_setopt_pointer(handle, CURLOPT_ERRORBUFFER, errorBuffer) == CURLE_OK
                ok = ok && ccurl_easy_setopt_long(handle, CURLOPT_NOSIGNAL, 1) == CURLE_OK
                ok = ok && ccurl_easy_setopt_long(handle, CURLOPT_TIMEOUT_MS, 20_000) == CURLE_OK
                ok = ok && ccurl_easy_setopt_long(handle, CURLOPT_CONNECTTIMEOUT_MS, 5_000) == CURLE_OK
                // No proxy from the environment: tests talk to 127.0.0.1 only.
                ok = ok && ccurl_easy_setopt_string(handle, CURLOPT_NOPROXY, "*") == CURLE_OK
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
                } else if !(method == "GET" && body == nil) && !(method == "POST" && body != nil) {
                    ok = ok && ccurl_easy_setopt_string(handle, CURLOPT_CUSTOMREQUEST, method) == CURLE_OK
                }
                ok = ok && ccurl_easy_setopt_slist(handle, CURLOPT_HTTPHEADER, list) == CURLE_OK
                ok = ok && ccurl_easy_setopt_data_callback(handle, CURLOPT_WRITEFUNCTION, httpCollect) == CURLE_OK
                ok = ok && ccurl_easy_setopt_pointer(handle, CURLOPT_WRITEDATA, me) == CURLE_OK
                guard ok else { return .failure(Failure(description: "libcurl refused an option")) }
                let code = curl_easy_perform(handle)
                guard code == CURLE_OK else {
                    let detail = String(cString: errorBuffer)
                    return .failure(
                        Failure(description: "\(url): " + (detail.isEmpty ? String(cString: curl_easy_strerror(code)) : detail)))
                }
                var status = 0
                _ = ccurl_easy_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &status)
                return .success((status, String(decoding: sink.bytes, as: UTF8.self)))
            }
        }
    }
}

/// The answer's body; only the transfer's own thread touches it.
private final class Sink {
    var bytes: [UInt8] = []
}

private func httpCollect(data: UnsafeMutablePointer<CChar>?, size: Int, count: Int, user: UnsafeMutableRawPointer?) -> Int {
    let length = size * count
    guard let data, let user else { return length }
    Unmanaged<Sink>.fromOpaque(user).takeUnretainedValue().bytes.append(
        contentsOf: UnsafeRawBufferPointer(start: data, count: length))
    return length
}
