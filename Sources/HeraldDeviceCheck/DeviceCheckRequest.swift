import Foundation

/// One call to DeviceCheck for one device. The client adds `transaction_id` and `timestamp` itself,
/// new for each attempt.
public struct DeviceCheckRequest: Sendable, Hashable {
    public var operation: DeviceCheckOperation
    /// Base64 from `DCDevice.generateToken` on the device.
    public var deviceToken: String
    /// For `update`: the bits to set; nil leaves a bit as it is.
    public var bit0: Bool?
    public var bit1: Bool?

    public init(_ operation: DeviceCheckOperation, deviceToken: String, bit0: Bool? = nil, bit1: Bool? = nil) {
        self.operation = operation
        self.deviceToken = deviceToken
        self.bit0 = bit0
        self.bit1 = bit1
    }

    /// The JSON body Apple expects: snake-case keys, the timestamp in milliseconds since the epoch.
    public func body(transactionID: String, timestamp: Int64) -> [UInt8] {
        let body = Body(
            deviceToken: deviceToken, transactionID: transactionID, timestamp: timestamp,
            bit0: operation == .update ? bit0 : nil, bit1: operation == .update ? bit1 : nil)
        return Array((try? Self.encoder.encode(body)) ?? Data())
    }

    /// Only the first 8 characters: a whole device token never reaches a log.
    public var tokenPrefix: String { String(deviceToken.prefix(8)) + "…" }

    private struct Body: Encodable {
        var deviceToken: String
        var transactionID: String
        var timestamp: Int64
        var bit0: Bool?
        var bit1: Bool?

        enum CodingKeys: String, CodingKey {
            case deviceToken = "device_token"
            case transactionID = "transaction_id"
            case timestamp, bit0, bit1
        }
    }

    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()
}
