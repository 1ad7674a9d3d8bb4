/// A backup or restore that did not happen; the message is one line for an operator, and the files it
/// names are as they were before the command (no half-written file is left under the name asked for).
public struct BackupFailure: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
