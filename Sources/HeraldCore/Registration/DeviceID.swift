/// The app's own stable install id: non-empty, at most 128 characters.
public struct DeviceID: Sendable, Hashable, CustomStringConvertible {
    public let rawValue: String

    public init(validating id: String) throws(HeraldFault) {
        if id.isEmpty { throw .missingDeviceId }
        try Limits.check("deviceId", id, limit: Limits.deviceId)
        try Limits.checkPrintable("deviceId", id)
        self.rawValue = id
    }

    public var description: String { rawValue }
}
