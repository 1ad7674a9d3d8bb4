/// The APNs settings cannot work: a missing file, a key that does not parse, a bad URL.
public struct APNsConfigurationError: Error, Sendable, Hashable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
