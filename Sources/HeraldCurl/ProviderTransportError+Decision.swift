import HeraldCore

extension Backoff {
    /// What a send that got no answer means, the same for every HTTP/2 push service: a handshake that
    /// broke off (curl 35), no connection, a reset, a lost connection or a timeout are retried with this
    /// backoff; a TLS failure otherwise is a certificate, key or CA problem that retrying will not fix,
    /// and stops the message (`tlsStopsTheMessage`, for a service at one address) or only this send (a
    /// service whose recipients each name their own server, as Web Push's do); no credentials to send with
    /// stops the message; a cancelled or otherwise failed send fails. `service` names the service in the
    /// reasons, `credentials` says what could not be had ("cannot sign provider tokens").
    public func decide<R: RandomNumberGenerator>(
        _ error: ProviderTransportError, attempt: Int, service: String, credentials: String, tlsStopsTheMessage: Bool = true,
        from start: Duration? = nil, random: inout R
    ) -> DeliveryDecision {
        switch error.kind {
        case .tls where error.curlCode == 35:
            // SSL_CONNECT_ERROR: the handshake broke off (a reset mid-handshake): transient.
            return retry(attempt: attempt, from: start, because: error.description, random: &random)
        case .tls:
            let reason = "TLS handshake with \(service) failed: \(error.message)"
            return tlsStopsTheMessage ? .abort(reason) : .fail(reason)
        case .credentials:
            return .abort("\(credentials): \(error.message)")
        case .cancelled:
            return .fail("cancelled before \(service) answered")
        case .other:
            return .fail("send failed: \(error.message)")
        case .connect, .streamReset, .connectionLost, .timeout, .tokenUnavailable:
            return retry(attempt: attempt, from: start, because: error.description, random: &random)
        }
    }
}
