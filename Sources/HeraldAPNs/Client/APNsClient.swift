import Foundation
import HeraldCurl
import HeraldSigning
import Logging

/// Handle and transfer counts of a client's curl loop.
public typealias APNsClientCounters = CurlCounters

/// An APNs provider client: one curl multi handle, so one connection pool, per credential.
/// Sends are multiplexed as HTTP/2 streams over `connections` connections; every send ends in
/// exactly one `APNsOutcome`, including when the client shuts down.
public final class APNsClient: Sendable {
    public let configuration: APNsClientConfiguration
    let loop: CurlMultiLoop
    /// The cached provider token (token auth); a channel client can share it (`APNsChannelClient`).
    public let providerToken: APNsProviderToken?
    private let headers = APNsHeaderLists()
    /// `https://api.push.apple.com/3/device/`: a send's URL is this and the device token, one concatenation.
    private let deviceURL: String
    private let logger: Logger

    public init(configuration: APNsClientConfiguration, logger: Logger = Logger(label: "herald.apns")) throws(APNsConfigurationError) {
        let settings = try configuration.validated()
        self.configuration = configuration
        self.deviceURL = configuration.environment.baseURL + APNsNotification.devicePath
        self.logger = logger
        if case .token(let key) = configuration.credentials {
            providerToken = APNsProviderToken(key: key, clock: configuration.clock)
        } else {
            providerToken = nil
        }
        do {
            loop = try CurlMultiLoop(
                settings: settings, connections: configuration.connections,
                streamsPerConnection: configuration.streamsPerConnection, name: "herald-apns-curl",
                stoppedText: "the APNs client was shut down")
        } catch {
            throw APNsConfigurationError(error.message)
        }
    }

    deinit { loop.stop() }

    /// Sends one notification and waits for its outcome.
    public func send(_ notification: APNsNotification) async -> APNsOutcome {
        await withCheckedContinuation { continuation in
            send(notification) { continuation.resume(returning: $0) }
        }
    }

    /// Sends one notification; `completion` runs once and must be quick: on the client's thread
    /// when APNs answered (or the client shut down), on the caller's when the notification was
    /// rejected locally and never sent.
    public func send(_ notification: APNsNotification, completion: @escaping @Sendable (APNsOutcome) -> Void) {
        send(notification, attempt: 1, completion: completion)
    }

    /// Closes every connection; pending sends end as cancelled. Never call it from a completion.
    public func shutdown() { loop.stop() }

    /// Handle and transfer counts, for tests and metrics.
    public var counters: APNsClientCounters { loop.counters }

    private func send(_ notification: APNsNotification, attempt: Int, completion: @escaping @Sendable (APNsOutcome) -> Void) {
        Self.send(
            notification, attempt: attempt, loop: loop, providerToken: providerToken, headers: headers, deviceURL: deviceURL,
            logger: logger, completion: completion)
    }

    /// Static, so completions hold the loop and the token but never the client: a client can
    /// then be released (and shut down) by its owner, never by the loop thread finishing a send.
    private static func send(
        _ notification: APNsNotification, attempt: Int, loop: CurlMultiLoop, providerToken: APNsProviderToken?,
        headers: APNsHeaderLists, deviceURL: String, logger: Logger, completion: @escaping @Sendable (APNsOutcome) -> Void
    ) {
        if let reason = notification.localRejection() {
            completion(.rejectedLocally(reason))
            return
        }
        let issued: APNsProviderToken.Issued?
        do {
            issued = try providerToken?.token()
        } catch {
            completion(.failed(APNsTransportError(kind: .credentials, curlCode: 0, message: "cannot sign the provider token: \(error)")))
            return
        }
        let job = CurlJob(
            url: deviceURL + notification.deviceToken, headers: headers.list(for: notification, token: issued), body: notification.payload
        ) { finished in
            let outcome = outcome(of: finished)
            if let issued, let providerToken, attempt == 1, outcome.reason == .known(.expiredProviderToken) {
                // APNs thinks the token is too old: sign a new one and try once more. Logged only
                // by the first answer for this token, not by every stream of a burst.
                if providerToken.expire(issued) {
                    logger.notice(
                        "APNs says the provider token expired; signing a new one",
                        metadata: ["herald.apns.key": "\(providerToken.key.keyID)"])
                }
                send(
                    notification, attempt: 2, loop: loop, providerToken: providerToken, headers: headers, deviceURL: deviceURL,
                    logger: logger, completion: completion)
                return
            }
            if case .failed(let error) = outcome {
                logger.debug(
                    "APNs send failed",
                    metadata: [
                        "herald.apns.token": "\(notification.deviceToken.prefix(8))…", "herald.apns.error": "\(error)",
                    ])
            }
            completion(outcome)
        }
        loop.submit(job)
    }

    /// What a finished transfer means for APNs.
    static func outcome(of finished: CurlCompletion) -> APNsOutcome {
        if finished.code != 0 {
            return .failed(
                APNsTransportError(kind: transportKind(curlCode: finished.code), curlCode: finished.code, message: finished.errorText))
        }
        var response = APNsResponse(
            status: finished.status, apnsID: finished.headers["apns-id"], apnsUniqueID: finished.headers["apns-unique-id"])
        if finished.status == 200 { return .delivered(response) }
        if let body = try? JSONDecoder().decode(ErrorBody.self, from: Data(finished.body)) {
            response.reason = body.reason.map(APNsReason.init)
            response.timestamp = body.timestamp
        }
        return .rejected(response)
    }

    private struct ErrorBody: Decodable {
        var reason: String?
        var timestamp: Int64?
    }

    /// Sorts libcurl's result codes into the failures a caller acts on differently.
    static func transportKind(curlCode code: Int) -> APNsTransportError.Kind { APNsTransportError.Kind(curlCode: code) }
}
