import HeraldCurl
import HeraldSigning

extension APNsClient {
    /// Publishes one broadcast on the client's connections to the APNs host (the same host and curl loop
    /// as `/3/device`, as Apple's broadcast page says), signed with the client's provider token; token
    /// auth only. An `ExpiredProviderToken` answer signs a new token and tries once more.
    public func broadcast(_ broadcast: APNsBroadcast) async -> APNsBroadcastResult {
        await withCheckedContinuation { continuation in
            Self.broadcast(broadcast, attempt: 1, loop: loop, providerToken: providerToken, baseURL: configuration.environment.baseURL) {
                continuation.resume(returning: $0)
            }
        }
    }

    private static func broadcast(
        _ broadcast: APNsBroadcast, attempt: Int, loop: CurlMultiLoop, providerToken: APNsProviderToken?, baseURL: String,
        completion: @escaping @Sendable (APNsBroadcastResult) -> Void
    ) {
        guard let providerToken else {
            completion(.failed(APNsTransportError(kind: .credentials, curlCode: 0, message: "broadcasts need token auth")))
            return
        }
        let issued: APNsProviderToken.Issued
        do {
            issued = try providerToken.token()
        } catch {
            completion(.failed(APNsTransportError(kind: .credentials, curlCode: 0, message: "cannot sign the provider token: \(error)")))
            return
        }
        let job = CurlJob(
            url: baseURL + broadcast.path, headers: CurlHeaderList(broadcast.headerLines + [issued.headerLine]), body: broadcast.payload
        ) { finished in
            let result = Self.result(of: finished)
            if attempt == 1, result.reason == .known(.expiredProviderToken) {
                providerToken.expire(issued)
                Self.broadcast(
                    broadcast, attempt: 2, loop: loop, providerToken: providerToken, baseURL: baseURL, completion: completion)
                return
            }
            completion(result)
        }
        loop.submit(job)
    }

    /// What a finished broadcast transfer means.
    static func result(of finished: CurlCompletion) -> APNsBroadcastResult {
        if finished.code != 0 {
            return .failed(APNsTransportError(curlCode: finished.code, message: finished.errorText))
        }
        let requestID = finished.headers["apns-request-id"]
        if finished.status == 200 { return .sent(requestID: requestID, uniqueID: finished.headers["apns-unique-id"]) }
        let reason = APNsBroadcastReason.inErrorBody(finished.body) ?? .unknown("HTTP \(finished.status)")
        return .rejected(status: finished.status, reason: reason, requestID: requestID)
    }
}
