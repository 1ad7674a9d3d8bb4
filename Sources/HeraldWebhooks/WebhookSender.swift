import HeraldCurl

/// Posts one event to a receiver as one `CurlTransfer` (libcurl's easy interface on a thread of its own,
/// so the blocking transfer never holds a Swift concurrency thread). Webhook traffic is a few events per change, not a
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

    public init() {}

    public func post(_ body: [UInt8], headers: [String], to target: WebhookTarget) async -> Result {
        let transfer = CurlTransfer(
            method: "POST", url: target.url, headers: headers + ["Content-Type: application/json", "User-Agent: Herald", "Expect:"],
            body: body, timeoutMilliseconds: target.timeoutMilliseconds, caFile: target.caFile, capturedHeaders: ["retry-after"],
            maxResponseBytes: 0)
        switch await transfer.perform() {
        case .success(let answer):
            // Seconds only; the HTTP-date form is left to the backoff.
            return .answered(status: answer.status, retryAfterSeconds: answer.headers["retry-after"].flatMap { Int64($0) })
        case .failure(let failure):
            return .failed(failure.message)
        }
    }
}
