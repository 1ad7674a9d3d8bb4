/// How one broadcast ended.
public enum APNsBroadcastResult: Sendable, Hashable {
    /// APNs accepted it (200): `uniqueID` (`apns-unique-id`) is what Apple asks for in a support request.
    case sent(requestID: String?, uniqueID: String?)
    /// APNs refused it with this status and reason.
    case rejected(status: Int, reason: APNsBroadcastReason, requestID: String?)
    /// No answer from APNs, or no provider token.
    case failed(APNsTransportError)

    public var isSent: Bool {
        if case .sent = self { return true }
        return false
    }

    /// The reason, if APNs gave one.
    public var reason: APNsBroadcastReason? {
        if case .rejected(_, let reason, _) = self { return reason }
        return nil
    }
}
