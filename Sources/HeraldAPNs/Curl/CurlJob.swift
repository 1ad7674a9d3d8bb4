import CCurl

/// One HTTP/2 POST for the loop to run.
struct CurlJob: Sendable {
    var url: String
    var headers: CurlHeaderList
    var payload: APNsPayload
    /// Called once, on the loop thread, when the transfer ends; must return quickly.
    var completion: @Sendable (CurlCompletion) -> Void
}

/// How a transfer ended, as curl reports it.
struct CurlCompletion: Sendable {
    /// CURLE_OK (0) when a response arrived, whatever its status.
    var code: Int
    var status: Int
    var body: [UInt8]
    var apnsID: String?
    var apnsUniqueID: String?
    var errorText: String
}

/// Cheap counters a test or benchmark reads to prove handles are not leaked.
public struct APNsClientCounters: Sendable, Hashable {
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
}
