/// A configuration Herald refuses to start with. `description` is the one line an operator sees.
public struct ConfigurationError: Error, CustomStringConvertible, Equatable {
    public let description: String

    public init(_ description: String) { self.description = description }
}
