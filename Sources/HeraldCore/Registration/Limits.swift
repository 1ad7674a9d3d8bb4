/// Herald's length limits (see the contract's "Limits"); every one is enforced with fault 8000 naming the property.
public enum Limits {
    public static let deviceToken = 512
    public static let deviceId = 128
    public static let os = 16
    public static let osVersion = 64
    public static let channelName = 128
    public static let channelsPerRegistration = 100
    public static let publisherId = 128
    public static let headerName = 128
    public static let headerValue = 2048
    /// Entries in a publish's `headers` object, and device ids in its `pushSinglecast` list: bounded by
    /// count, not only by the body limit, so the work a request causes stays bounded if that limit is raised.
    public static let headersPerMessage = 100
    public static let singlecastDevices = 1000
    /// Values (every member, element and scalar, counted through every level, the outermost object or
    /// array itself not included) in a free-form JSON value: a publish's `message` when it is an object or
    /// array, and a custom header's object or array value.
    public static let structuredValues = 1000
    /// Request bodies larger than this are refused with HTTP 413 and code 8000 naming "body".
    public static let requestBodyBytes = 64 * 1024
    /// A request's head: one header line (or the request line) at most, the whole head at most, and at most
    /// this many headers; past any of them the answer is 431 and the connection closes.
    public static let headerFieldBytes = 16 * 1024
    public static let headerBytes = 64 * 1024
    public static let headerCount = 100

    /// Throws 8008 when `value` holds a control character (U+0000–U+001F, U+007F). A NUL would be cut off
    /// by the database driver on the way back, and no real token, id or version contains one.
    public static func checkPrintable(_ property: String, _ value: String) throws(HeraldFault) {
        // These characters are single UTF-8 bytes, and no byte of a longer character is below 0x80.
        if !value.allUTF8Bytes({ $0 >= 0x20 && $0 != 0x7F }) {
            throw .invalidParameter(property, "control characters are not allowed")
        }
    }

    /// Throws 8000 naming `property` when `value` holds more than `structuredValues` values in all.
    public static func checkStructure(_ property: String, _ value: JSONValue) throws(HeraldFault) {
        var count = -1  // the outermost value is the container, not one of its values
        var pending = [value]
        while let next = pending.popLast() {
            count += 1
            if count > structuredValues { throw .tooManyValues(property: property, limit: structuredValues) }
            switch next {
            case .array(let items): pending += items
            case .object(let members): pending += members.values
            default: break
            }
        }
    }

    /// Throws 8000 when `value` is longer than `limit` characters.
    public static func check(_ property: String, _ value: String, limit: Int) throws(HeraldFault) {
        // No more characters than UTF-8 bytes, and a native string knows its byte count: only a value with
        // more bytes than the limit has its characters counted.
        guard value.utf8.count > limit else { return }
        let length = value.count
        if length > limit { throw .tooLong(property: property, length: length, limit: limit) }
    }
}
