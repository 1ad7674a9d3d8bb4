import HeraldCore
import HeraldCurl
import Logging

/// The OAuth access token of one service account: obtained by trading a signed assertion at the
/// account's `token_uri`, cached until shortly before it expires, refreshed once for every send
/// that needs it. Sends wait for it through callbacks, never by holding a thread.
public final class FCMAccessToken: Sendable {
    /// Posts a token request's form body to the token endpoint and calls back once with the answer.
    typealias Exchange =
        @Sendable (_ body: [UInt8], _ completion: @escaping @Sendable (Result<CurlTransfer.Response, CurlTransfer.Failure>) -> Void)
        -> Void
    typealias Waiter = @Sendable (Result<Issued, FCMTransportError>) -> Void

    public let account: FCMServiceAccount
    private let clock: any WallClock
    private let exchange: Exchange
    private let logger: Logger
    private let cache = Locked(FCMTokenCache<Waiter>())

    /// Tokens from `account.tokenURI`, trusting `caFile` if given (a mock's CA).
    public convenience init(
        account: FCMServiceAccount, clock: any WallClock = SystemClock(), caFile: String? = nil,
        timeout: Duration = .seconds(30), logger: Logger = Logger(label: "herald.fcm")
    ) {
        let url = account.tokenURI
        let milliseconds = CurlOptions.milliseconds(timeout)
        self.init(account: account, clock: clock, logger: logger) { body, completion in
            CurlTransfer(
                method: "POST", url: url,
                headers: [
                    "content-type: application/x-www-form-urlencoded", "accept: application/json",
                    "Expect:",  // no 100-continue round trip (curl asks for one once a body passes 1 KiB)
                ], body: body,
                timeoutMilliseconds: milliseconds, caFile: caFile, maxResponseBytes: 64 * 1024
            ).perform(completion: completion)
        }
    }

    init(account: FCMServiceAccount, clock: any WallClock, logger: Logger, exchange: @escaping Exchange) {
        self.account = account
        self.clock = clock
        self.logger = logger
        self.exchange = exchange
    }

    /// Calls `completion` once with a token to send with: at once (on this thread) when one is cached,
    /// else when the fetch in progress ends (on the thread that ended it).
    public func token(completion: @escaping @Sendable (Result<Issued, FCMTransportError>) -> Void) {
        let answer = cache.withLock { $0.request(now: clock.now.milliseconds, waiter: completion) }
        switch answer {
        case .ready(let issued, let refresh):
            if refresh { fetch() }
            completion(.success(issued))
        case .wait(let fetch):
            if fetch { self.fetch() }
        case .refused(let error):
            completion(.failure(error))
        }
    }

    /// The token to send with, waiting for a fetch if none is cached.
    public func token() async -> Result<Issued, FCMTransportError> {
        await withCheckedContinuation { continuation in token { continuation.resume(returning: $0) } }
    }

    /// FCM said `issued` is not (or no longer) valid: forget it, unless another answer already replaced
    /// it, so a burst of such answers fetches one new token, not one each. Returns whether this call
    /// discarded it.
    @discardableResult
    public func expire(_ issued: Issued) -> Bool { cache.withLock { $0.expire(issued) } }

    /// Asks the token endpoint; exactly one fetch runs at a time (the cache's `fetching`).
    private func fetch() {
        let body: [UInt8]
        do {
            body = try account.tokenRequestBody(issuedAt: clock.now.milliseconds / 1000)
        } catch {
            finish(.failure(FCMTransportError(kind: .credentials, curlCode: 0, message: "cannot sign the OAuth assertion: \(error)")))
            return
        }
        exchange(body) { [self] answer in finish(Self.grant(from: answer, account: account)) }
    }

    private func finish(_ result: Result<(token: String, expiresIn: Int64), FCMTransportError>) {
        let (outcome, waiters) = cache.withLock { $0.finish(result, now: clock.now.milliseconds) }
        switch outcome {
        case .success(let issued):
            logger.debug(
                "obtained an FCM access token",
                metadata: ["herald.fcm.account": "\(account.clientEmail)", "herald.fcm.expires_in": "\(issued.lifetime / 1000)s"])
        case .failure(let error):
            logger.warning(
                "cannot obtain an FCM access token",
                metadata: ["herald.fcm.account": "\(account.clientEmail)", "herald.fcm.error": "\(error)"])
        }
        for waiter in waiters { waiter(outcome) }
    }
}
