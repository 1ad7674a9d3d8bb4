/// Why a packet could not be read, and where: a request that is not AMF, is cut short, or breaks a limit.
/// The reason is written for a person reading a log; the offset lets them find the byte in a capture.
public struct AMFDecodingError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Byte offset in the packet of the field that could not be read.
    public var offset: Int
    /// What was wrong, in words (no AMF knowledge assumed).
    public var reason: String

    public init(offset: Int, reason: String) {
        self.offset = offset
        self.reason = reason
    }

    public var description: String {
        "AMF packet unreadable at byte \(offset): \(reason)"
    }
}
