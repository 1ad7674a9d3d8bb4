extension FCMAccessToken {
    /// An access token and how long it lives, by the injected clock.
    public struct Issued: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible {
        let accessToken: String
        /// Epoch milliseconds when the token endpoint's answer arrived.
        public let obtainedAt: Int64
        /// Epoch milliseconds when it stops working (`obtainedAt` + `expires_in`).
        public let expiresAt: Int64
        /// Counts tokens of one source, so a header list is matched to its token cheaply.
        let serial: UInt64
        /// The request header line, built once per token rather than once per send.
        let headerLine: String

        init(accessToken: String, obtainedAt: Int64, expiresAt: Int64, serial: UInt64) {
            self.accessToken = accessToken
            self.obtainedAt = obtainedAt
            self.expiresAt = expiresAt
            self.serial = serial
            headerLine = "authorization: Bearer " + accessToken
        }

        /// Lifetime in milliseconds.
        var lifetime: Int64 { max(0, expiresAt - obtainedAt) }

        /// Refresh once less than this remains: 5 minutes of Google's hour, a quarter of a short
        /// (test) lifetime, so a mock's 10-second tokens are refreshed 2.5 s early.
        var refreshMargin: Int64 { min(300_000, lifetime / 4) }

        /// Stop sending with it once less than this remains (a request may take a while to arrive):
        /// 30 s of an hour, a tenth of a short lifetime.
        var usableMargin: Int64 { min(30_000, lifetime / 10) }

        func isUsable(at now: Int64) -> Bool { now >= obtainedAt - 60_000 && now < expiresAt - usableMargin }
        func needsRefresh(at now: Int64) -> Bool { now >= expiresAt - refreshMargin }

        /// Never the token itself: an access token in a log is a credential in a log.
        public var description: String { "FCM access token #\(serial) obtained at \(obtainedAt) ms, expiring at \(expiresAt) ms" }
        public var debugDescription: String { description }
    }
}
