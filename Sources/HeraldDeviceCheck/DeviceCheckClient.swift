import Foundation
import HeraldCore
import HeraldCurl
import HeraldSigning
import Logging

/// A DeviceCheck client for one app's key: one curl multi handle on the shared curl layer (so one
/// HTTP/2 connection pool, calls multiplexed as streams), the bearer token signed and cached as APNs's
/// provider token is, and 429, 5xx and lost answers retried a bounded number of times.
public final class DeviceCheckClient: Sendable {
    public let configuration: DeviceCheckClientConfiguration
    private let loop: CurlMultiLoop
    private let token: AppleBearerToken
    /// The header lines of the current token, built once per token rather than once per call.
    private let headers = Locked<(jwt: String, list: CurlHeaderList)?>(nil)
    private let logger: Logger

    public init(configuration: DeviceCheckClientConfiguration, logger: Logger = Logger(label: "herald.devicecheck"))
        throws(DeviceCheckConfigurationError)
    {
        let settings = try configuration.validated()
        self.configuration = configuration
        self.logger = logger
        token = AppleBearerToken(key: configuration.key, clock: configuration.clock)
        do {
            loop = try CurlMultiLoop(
                settings: settings, connections: configuration.connections,
                streamsPerConnection: configuration.streamsPerConnection, name: "herald-devicecheck-curl",
                stoppedText: "the DeviceCheck client was shut down")
        } catch {
            throw DeviceCheckConfigurationError(error.message)
        }
    }

    deinit { loop.stop() }

    /// Performs `request`, retrying as the configuration allows; every call ends in a result or a failure.
    public func perform(_ request: DeviceCheckRequest) async -> Result<DeviceCheckResult, DeviceCheckFailure> {
        var random = SystemRandomNumberGenerator()
        var attempt = 1
        var renewed = false
        while true {
            let (verdict, sent) = await attemptOnce(request)
            switch verdict {
            case .done(let result):
                return .success(result)
            case .fail(let failure):
                return .failure(failure)
            case .renewToken(let text):
                // Once per call: a token Apple refuses twice in a row means the key, its id or the team is wrong.
                // The token this call sent, not whatever is cached now: of many calls refused at once, the
                // first discards it and the others find the new one already signed.
                guard !renewed, let sent else { return .failure(.credentialsRefused(text)) }
                token.expire(sent)
                renewed = true
            case .retry(let why):
                guard case .retry(let delay) = configuration.retry.retry(attempt: attempt, because: why, random: &random) else {
                    logger.notice(
                        "DeviceCheck unavailable",
                        metadata: ["herald.devicecheck.token": "\(request.tokenPrefix)", "herald.reason": "\(why)"])
                    return .failure(.unavailable("\(why) (after \(attempt) attempts)"))
                }
                attempt += 1
                do {
                    try await Task.sleep(for: delay)
                } catch {
                    return .failure(.client("cancelled while waiting to retry: \(why)"))
                }
            }
        }
    }

    /// Closes every connection; calls in flight end as failed. Never call it from a completion.
    public func shutdown() { loop.stop() }

    /// Handle and transfer counts, for tests and benchmarks.
    public var counters: CurlCounters { loop.counters }

    /// One request on the wire, with a transaction id and timestamp of its own; the verdict, and the
    /// token it carried (nil when none could be signed).
    private func attemptOnce(_ request: DeviceCheckRequest) async -> (DeviceCheckVerdict, AppleBearerToken.Issued?) {
        let issued: AppleBearerToken.Issued
        do {
            issued = try token.token()
        } catch {
            return (.fail(.client("the DeviceCheck key cannot sign a token: \(error)")), nil)
        }
        let body = CurlBody(
            request.body(transactionID: UUID().uuidString, timestamp: configuration.clock.now.milliseconds))
        let url = configuration.environment.baseURL + request.operation.path
        let list = headerList(for: issued)
        let operation = request.operation
        let verdict = await withCheckedContinuation { continuation in
            loop.submit(
                CurlJob(url: url, headers: list, body: body) { finished in
                    continuation.resume(
                        returning: DeviceCheckVerdict.reading(
                            operation, curlCode: finished.code, status: finished.status, body: finished.body,
                            errorText: finished.errorText))
                })
        }
        return (verdict, issued)
    }

    private func headerList(for issued: AppleBearerToken.Issued) -> CurlHeaderList {
        if let cached = headers.withLock({ $0 }), cached.jwt == issued.jwt { return cached.list }
        let list = CurlHeaderList(["content-type: application/json", "Accept:", "authorization: Bearer " + issued.jwt])
        headers.withLock { $0 = (issued.jwt, list) }
        return list
    }
}
