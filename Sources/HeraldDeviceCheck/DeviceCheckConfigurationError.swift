/// A DeviceCheck client cannot be set up as configured; the message is one line for an operator.
public struct DeviceCheckConfigurationError: Error, Sendable, Hashable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
