/// Herald's length limits (see the contract's "Limits"); every one is enforced with fault 8000 naming the property.
public enum Limits {
    public static let deviceToken = 512
    public static let deviceId = 128
    public static let os = 16
    public static let osVersion = 64
    public static let channelName = 128
    public static let channelsPerRegistration = 100
    /// Request bodies larger than this are refused with HTTP 413 and code 8000 naming "body".
    public static let requestBodyBytes = 64 * 1024

    /// Throws 8000 when `value` is longer than `limit` characters.
    public static func check(_ property: String, _ value: String, limit: Int) throws(HeraldFault) {
        let length = value.count
        if length > limit { throw .tooLong(property: property, length: length, limit: limit) }
    }
}
