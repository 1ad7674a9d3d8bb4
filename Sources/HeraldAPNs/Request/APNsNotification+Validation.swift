import HeraldCore
import HeraldCurl

extension APNsNotification {
    /// The reason APNs would reject this notification with, or nil if it would take it.
    /// Checked before sending so a bad request never costs a round trip, and so the caller sees
    /// the same typed reason whichever side found the problem.
    public func localRejection() -> APNsReason? {
        if deviceToken.isEmpty { return .known(.missingDeviceToken) }
        if !deviceToken.allUTF8Bytes(\.isHexDigit) { return .known(.badDeviceToken) }
        if topic.isEmpty { return .known(.missingTopic) }
        if !topic.allUTF8Bytes({ $0 > 0x20 && $0 != 0x7F }) { return .known(.badTopic) }
        // Background pushes must be power-aware; left unset, the request says 5 for them.
        if pushType == .background, let priority, priority != .powerConsiderate { return .known(.badPriority) }
        if let expiration, expiration < 0 { return .known(.badExpirationDate) }
        if let collapseID {
            if collapseID.utf8.count > 64 { return .known(.badCollapseId) }
            if collapseID.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }) { return .known(.badCollapseId) }
        }
        if payload.count == 0 { return .known(.payloadEmpty) }
        if payload.count > pushType.maximumPayloadBytes { return .known(.payloadTooLarge) }
        return nil
    }
}

extension UInt8 {
    var isHexDigit: Bool {
        (0x30...0x39).contains(self) || (0x61...0x66).contains(self) || (0x41...0x46).contains(self)
    }
}
