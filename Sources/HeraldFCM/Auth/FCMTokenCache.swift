import HeraldCore
import HeraldCurl

/// When the cached access token is used, refreshed or waited for: the decisions of `FCMAccessToken`
/// as a plain value, so refresh timing and single flight are tested without a token endpoint.
///
/// A token is used until `usableMargin` before it expires; once less than `refreshMargin` remains one
/// refresh starts in the background while sends go on with it. With no usable token, requests wait
/// for the one fetch in progress (starting it if none is), and all of them get its result.
struct FCMTokenCache<Waiter> {
    /// What a request for a token gets.
    enum Answer {
        /// Send with this token; when `refresh`, also start the one background refresh.
        case ready(FCMAccessToken.Issued, refresh: Bool)
        /// The waiter was queued; when `fetch`, the caller starts the fetch (nobody else will).
        case wait(fetch: Bool)
        /// The token endpoint refused the credentials moments ago; fail without asking it again.
        case refused(FCMTransportError)
    }

    private(set) var current: FCMAccessToken.Issued?
    private(set) var fetching = false
    private(set) var waiters: [Waiter] = []
    /// A refusal is repeated to requests for this long (ms), so a burst of sends with wrong credentials
    /// costs one token request, not one each.
    let refusalHoldMilliseconds: Int64
    private var refusal: (error: FCMTransportError, until: Int64)?
    private var serial: UInt64 = 0

    init(refusalHoldMilliseconds: Int64 = 5_000) { self.refusalHoldMilliseconds = refusalHoldMilliseconds }

    /// A token wanted at `now` (epoch ms); `waiter` is kept only when the answer is `wait`.
    mutating func request(now: Int64, waiter: Waiter) -> Answer {
        if let current, current.isUsable(at: now) {
            guard !fetching, current.needsRefresh(at: now) else { return .ready(current, refresh: false) }
            fetching = true
            return .ready(current, refresh: true)
        }
        if !fetching, let refusal, now < refusal.until { return .refused(refusal.error) }
        waiters.append(waiter)
        if fetching { return .wait(fetch: false) }
        fetching = true
        return .wait(fetch: true)
    }

    /// The fetch ended at `now` with an access token valid for `expiresIn` seconds, or an error.
    /// Returns the waiters to resume with `current` (or the error).
    mutating func finish(_ result: Result<(token: String, expiresIn: Int64), FCMTransportError>, now: Int64) -> (
        result: Result<FCMAccessToken.Issued, FCMTransportError>, waiters: [Waiter]
    ) {
        fetching = false
        let woken = waiters
        waiters.removeAll()
        switch result {
        case .success(let grant):
            serial += 1
            // Saturating: the lifetime is the token endpoint's number, and no answer may trap Herald.
            let expiresAt = Timestamp(milliseconds: now).adding(milliseconds: Timestamp.milliseconds(seconds: grant.expiresIn))
            let issued = FCMAccessToken.Issued(
                accessToken: grant.token, obtainedAt: now, expiresAt: expiresAt.milliseconds, serial: serial)
            current = issued
            refusal = nil
            return (.success(issued), woken)
        case .failure(let error):
            if error.kind == .credentials { refusal = (error, now + refusalHoldMilliseconds) }
            // A failed background refresh keeps the token that still works; the next request past
            // the refresh margin tries again.
            return (.failure(error), woken)
        }
    }

    /// FCM refused `issued` (401): forget it unless a newer one already replaced it.
    mutating func expire(_ issued: FCMAccessToken.Issued) -> Bool {
        guard current == issued else { return false }
        current = nil
        return true
    }
}
