import HeraldCore
import HeraldDeviceCheck

extension DeviceCheckRequest {
    /// The longest device token Herald passes on (DCDevice tokens are a few KB of base64).
    static let maxTokenLength = 8192

    /// Reads a DeviceCheck route's body: `deviceToken` (base64) always, `bit0`/`bit1` for an update
    /// (at least one of them).
    init(_ operation: DeviceCheckOperation, json: JSONValue) throws(HeraldFault) {
        guard case .object(let body) = json else { throw .unparsable("the body must be a JSON object") }
        let token: String
        switch body["deviceToken"] {
        case nil, .null: throw .missingParameter("deviceToken")
        case .string(let text): token = text
        case let other?:
            throw .invalidParameter("deviceToken", "expected a string (base64 from DCDevice.generateToken), got \(other.typeName)")
        }
        guard !token.isEmpty else { throw .missingParameter("deviceToken") }
        try Limits.check("deviceToken", token, limit: Self.maxTokenLength)
        guard Self.isBase64(token) else {
            throw .invalidParameter("deviceToken", "expected base64 (A–Z a–z 0–9 + / and = padding), as DCDevice.generateToken gives it")
        }
        func bit(_ name: String) throws(HeraldFault) -> Bool? {
            switch body[name] {
            case nil, .null: return nil
            case .bool(let value): return value
            case let other?: throw .invalidParameter(name, "expected true or false, got \(other.typeName)")
            }
        }
        var bit0: Bool?
        var bit1: Bool?
        if operation == .update {
            bit0 = try bit("bit0")
            bit1 = try bit("bit1")
            guard bit0 != nil || bit1 != nil else { throw .invalidParameter("bit0", "give bit0, bit1 or both to update") }
        }
        self.init(operation, deviceToken: token, bit0: bit0, bit1: bit1)
    }

    /// Standard base64, padding optional, no spaces.
    static func isBase64(_ text: String) -> Bool {
        var padding = 0
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "="): padding += 1
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "+"), UInt8(ascii: "/"):
                if padding > 0 { return false }
            default: return false
            }
        }
        return padding <= 2
    }
}
