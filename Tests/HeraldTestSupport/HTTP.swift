import Foundation
import HeraldCurl

/// A tiny HTTP client for talking to a spawned server: one `CurlTransfer` (libcurl's easy interface on a
/// Dispatch worker thread) per request.
///
/// Not `URLSession`: FoundationNetworking on Linux watches curl's sockets with `DispatchSource`s, and a
/// teardown race in that code (swift-corelibs-foundation #4791 and its successors) crashed the whole test
/// process with SIGSEGV inside libdispatch once in CI.
public enum HTTP {
    public static func send(_ method: String, _ url: URL, json: String? = nil, headers: [String: String] = [:]) async throws -> (
        status: Int, body: String
    ) {
        let answer = try await exchange(method, url, json: json, headers: headers)
        return (answer.status, answer.body)
    }

    /// `send`, also keeping the answer's headers named in `capturing` (by lower-case name).
    public static func exchange(
        _ method: String, _ url: URL, json: String? = nil, headers: [String: String] = [:], capturing: [String] = []
    ) async throws -> (status: Int, body: String, headers: [String: String]) {
        var lines = headers.map { "\($0.key): \($0.value)" }
        if json != nil { lines.append("Content-Type: application/json") }
        lines.append("Expect:")
        let body = json.map { Array($0.utf8) } ?? (["POST", "PUT", "PATCH"].contains(method) ? [] : nil)
        let transfer = CurlTransfer(
            method: method, url: url.absoluteString, headers: lines, body: body, timeoutMilliseconds: 20_000, ignoreProxies: true,
            capturedHeaders: capturing)
        switch await transfer.perform() {
        case .success(let answer): return (answer.status, String(decoding: answer.body, as: UTF8.self), answer.headers)
        case .failure(let failure): throw failure
        }
    }
}
