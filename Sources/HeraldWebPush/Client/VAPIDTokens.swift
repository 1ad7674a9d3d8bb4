import HeraldCore

/// The VAPID `Authorization` value for each push service (its origin is the token's audience), signed
/// once and reused until it nears its expiry: a fan-out to a million browsers signs a handful of
/// tokens, not a million.
final class VAPIDTokens: Sendable {
    /// One service's current token.
    struct Issued: Sendable {
        /// `authorization: vapid t=…, k=…`, the header line as sent.
        let headerLine: String
        /// Which token this is: header lists built for it are keyed by it.
        let serial: UInt64
        /// Epoch seconds: the token's `exp`.
        let expiresAt: Int64
    }

    let key: VAPIDKey
    private let clock: any WallClock
    private let state = Locked<(issued: [String: Issued], serial: UInt64)>(([:], 0))

    /// A token is valid this long (RFC 8292 allows at most 24 hours; push services check `exp`)…
    static let lifetimeSeconds: Int64 = 12 * 3600
    /// …and replaced once less than this is left, so one never expires on the way.
    static let renewSeconds: Int64 = 3600
    /// Services remembered at most (a subscription names its own; the forgotten are signed again).
    static let maxServices = 256

    init(key: VAPIDKey, clock: any WallClock) {
        self.key = key
        self.clock = clock
    }

    /// The token for `audience` (`https://host[:port]`); throws when the key cannot sign.
    func issued(for audience: String) throws -> Issued {
        let now = clock.now.milliseconds / 1000
        if let current = state.withLock({ $0.issued[audience] }), current.expiresAt - now > Self.renewSeconds { return current }
        let expiresAt = now + Self.lifetimeSeconds
        let value = try key.authorization(audience: audience, expiresAt: expiresAt)
        return state.withLock { state in
            // Another send may have signed meanwhile: keep the first, so a burst shares one header list.
            if let current = state.issued[audience], current.expiresAt - now > Self.renewSeconds { return current }
            if state.issued.count >= Self.maxServices { state.issued.removeAll() }
            state.serial += 1
            let issued = Issued(headerLine: "authorization: " + value, serial: state.serial, expiresAt: expiresAt)
            state.issued[audience] = issued
            return issued
        }
    }
}
