import Foundation
import HeraldCore
import HeraldCurl
import Logging

/// An FCM HTTP v1 client for one service account (one Firebase project): one curl multi handle, so
/// one connection pool, with sends multiplexed as HTTP/2 streams. Every send ends in exactly one
/// `FCMOutcome`, including when the client shuts down.
public final class FCMClient: Sendable {
    public let configuration: FCMClientConfiguration
    /// The access token every send carries; shared so a burst waits for one fetch.
    public let accessToken: FCMAccessToken
    private let loop: CurlMultiLoop
    /// The header list of the current access token, built once per token (its serial), not per device.
    private let headers = CurlHeaderListCache<UInt64>()
    private let sendURL: String
    private let logger: Logger

    public init(configuration: FCMClientConfiguration, logger: Logger = Logger(label: "herald.fcm")) throws(FCMConfigurationError) {
        let settings = try configuration.validated()
        self.configuration = configuration
        self.sendURL = configuration.sendURL
        self.logger = logger
        accessToken = FCMAccessToken(
            account: configuration.serviceAccount, clock: configuration.clock, caFile: configuration.caFile,
            timeout: configuration.requestTimeout, logger: logger)
        do {
            loop = try CurlMultiLoop(
                settings: settings, connections: configuration.connections,
                streamsPerConnection: configuration.streamsPerConnection, name: "herald-fcm-curl",
                stoppedText: "the FCM client was shut down")
        } catch {
            throw FCMConfigurationError(error.message)
        }
    }

    deinit { loop.stop() }

    /// Sends one message and waits for its outcome.
    public func send(token: String, body: CurlBody) async -> FCMOutcome {
        await withCheckedContinuation { continuation in
            send(token: token, body: body) { continuation.resume(returning: $0) }
        }
    }

    /// Sends `body` (a whole `{"message":{"token":…}}` request, see `FCMContent.requestBody(token:)`);
    /// `token` is the device token it is addressed to, for logs (its first 8 characters). `completion`
    /// runs once and must be quick: on the client's thread when FCM answered or the client shut down,
    /// on a token fetch's thread or the caller's when no access token could be had.
    public func send(token: String, body: CurlBody, completion: @escaping @Sendable (FCMOutcome) -> Void) {
        Self.send(
            Send(
                deviceToken: token, body: body, attempt: 1, loop: loop, accessToken: accessToken, headers: headers, url: sendURL,
                logger: logger),
            completion: completion)
    }

    /// Closes every connection; pending sends end as cancelled. Never call it from a completion.
    public func shutdown() { loop.stop() }

    /// Handle and transfer counts, for tests and metrics.
    public var counters: CurlCounters { loop.counters }

    /// One send and what it needs, so completions hold the loop and the token source but never the
    /// client: a client can then be released (and shut down) by its owner, never by the loop thread.
    private struct Send: Sendable {
        var deviceToken: String
        var body: CurlBody
        var attempt: Int
        var loop: CurlMultiLoop
        var accessToken: FCMAccessToken
        var headers: CurlHeaderListCache<UInt64>
        var url: String
        var logger: Logger
    }

    private static func send(_ send: Send, completion: @escaping @Sendable (FCMOutcome) -> Void) {
        send.accessToken.token { result in
            switch result {
            case .failure(let error):
                completion(.failed(error))
            case .success(let issued):
                let job = CurlJob(
                    url: send.url,
                    headers: send.headers.list(for: issued.serial) {
                        CurlHeaderList([issued.headerLine, "content-type: application/json", "Accept:"])
                    }, body: send.body
                ) { finished in
                    finish(send, issued: issued, outcome: outcome(of: finished), completion: completion)
                }
                send.loop.submit(job)
            }
        }
    }

    private static func finish(
        _ send: Send, issued: FCMAccessToken.Issued, outcome: FCMOutcome, completion: @escaping @Sendable (FCMOutcome) -> Void
    ) {
        if send.attempt == 1, case .rejected(let response) = outcome, isStaleAccessToken(response) {
            // FCM no longer takes this access token: fetch a new one and try once more. Logged only by
            // the first answer for this token, not by every stream of a burst.
            if send.accessToken.expire(issued) {
                send.logger.notice(
                    "FCM refused the access token; fetching a new one",
                    metadata: ["herald.fcm.account": "\(send.accessToken.account.clientEmail)"])
            }
            var again = send
            again.attempt = 2
            Self.send(again, completion: completion)
            return
        }
        if case .failed(let error) = outcome {
            send.logger.debug(
                "FCM send failed", metadata: ["herald.fcm.token": "\(send.deviceToken.prefix(8))…", "herald.fcm.error": "\(error)"])
        }
        completion(outcome)
    }

    /// A 401 that blames our access token, not the APNs credentials Firebase holds for the app.
    static func isStaleAccessToken(_ response: FCMResponse) -> Bool {
        response.status == 401 && response.errorCode != .thirdPartyAuthError
    }

    /// What a finished transfer means for FCM.
    static func outcome(of finished: CurlCompletion) -> FCMOutcome {
        if finished.code != 0 { return .failed(FCMTransportError(curlCode: finished.code, message: finished.errorText)) }
        if finished.status == 200 { return .delivered(FCMDelivery(body: finished.body)) }
        return .rejected(FCMResponse(status: finished.status, body: finished.body, retryAfter: finished.headers["retry-after"]))
    }
}
