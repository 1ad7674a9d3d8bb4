/// The FCM settings cannot work: an unreadable or malformed service-account key file, a bad URL,
/// limits out of range. One line that names the problem and never the key.
public struct FCMConfigurationError: Error, Sendable, Hashable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
