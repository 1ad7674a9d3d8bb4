import HeraldCore

/// The one cached bearer token of a key (APNs's provider token, DeviceCheck's bearer token). APNs wants
/// it refreshed no more often than every 20 minutes and no less often than every 60, so it is re-signed
/// after `lifetime` (50 minutes).
public final class AppleBearerToken: Sendable {
    /// A signed token and when it was issued.
    public struct Issued: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible {
        public let jwt: String
        /// Epoch seconds (the `iat` claim).
        public let issuedAt: Int64
        /// The request header line, built once per token rather than once per send.
        public let headerLine: String

        init(jwt: String, issuedAt: Int64) {
            self.jwt = jwt
            self.issuedAt = issuedAt
            headerLine = "authorization: bearer " + jwt
        }

        /// Never the token itself: a JWT in a log is a credential in a log.
        public var description: String { "bearer token issued at \(issuedAt)" }
        public var debugDescription: String { description }
    }

    public let key: AppleSigningKey
    private let clock: any WallClock
    private let lifetimeSeconds: Int64
    private let current = Locked<Issued?>(nil)

    public init(key: AppleSigningKey, clock: any WallClock = SystemClock(), lifetime: Duration = .seconds(50 * 60)) {
        self.key = key
        self.clock = clock
        self.lifetimeSeconds = lifetime.components.seconds
    }

    /// The token to send now: the cached one, or a new one once the cached one is `lifetime` old.
    public func token() throws -> Issued {
        let now = clock.now.milliseconds / 1000
        return try current.withLock { cached in
            if let cached, now - cached.issuedAt < lifetimeSeconds, now >= cached.issuedAt { return cached }
            let issued = Issued(jwt: try key.sign(issuedAt: now), issuedAt: now)
            cached = issued
            return issued
        }
    }

    /// The service said the token `issued` has expired: forget it, unless another answer already
    /// replaced it, so a burst of such answers signs one new token, not one each.
    /// Returns whether this call discarded it.
    @discardableResult
    public func expire(_ issued: Issued) -> Bool {
        current.withLock { cached in
            guard cached == issued else { return false }
            cached = nil
            return true
        }
    }
}
