import Foundation

/// When a registration stops being live. Construction enforces the contract's rules:
/// epoch values below 100,000,000,000 are seconds (JS SDK), larger ones milliseconds (Swift SDK),
/// ISO-8601 strings are accepted, and the instant must be after `now` (5004).
public struct Expiration: Sendable, Hashable {
    public let timestamp: Timestamp

    /// Epoch values below this are seconds; at or above it, milliseconds (year 5138 in seconds, 1973 in ms).
    public static let millisecondsThreshold: Double = 100_000_000_000

    /// Parses the `expiration` property; `nil` means the registration never expires.
    public static func parse(_ value: JSONValue, now: Timestamp) throws(HeraldFault) -> Expiration? {
        let milliseconds: Int64
        switch value {
        case .null:
            return nil
        case .integer(let number):
            milliseconds = try epochMilliseconds(Double(number))
        case .number(let number):
            milliseconds = try epochMilliseconds(number)
        case .string(let text):
            if let number = Double(text.trimmingCharacters(in: .whitespaces)) {
                milliseconds = try epochMilliseconds(number)
            } else if let date = parseISO8601(text) {
                milliseconds = try inRange(date.timeIntervalSince1970 * 1000)
            } else {
                throw .invalidParameter("expiration", "expected epoch seconds, epoch milliseconds or an ISO-8601 date")
            }
        default:
            throw .invalidParameter("expiration", "expected a number or a date string, got \(value.typeName)")
        }
        guard milliseconds > now.milliseconds else { throw .expirationNotInFuture }
        return Expiration(timestamp: Timestamp(milliseconds: milliseconds))
    }

    public init(timestamp: Timestamp) { self.timestamp = timestamp }

    static func epochMilliseconds(_ value: Double) throws(HeraldFault) -> Int64 {
        try inRange(abs(value) < millisecondsThreshold ? value * 1000 : value)
    }

    /// Epoch milliseconds, whole, when under 10^15 in magnitude (the year 33658): beyond it 8008. The same bound
    /// for every form, so an ISO-8601 date cannot give a time a number may not (Foundation reads years of up to
    /// nine digits, and wraps larger ones), and every time answered stays exact in a JavaScript number.
    static func inRange(_ milliseconds: Double) throws(HeraldFault) -> Int64 {
        guard milliseconds.isFinite, abs(milliseconds) < 1e15 else {
            throw .invalidParameter("expiration", "the value is out of range")
        }
        return Int64(milliseconds.rounded(.down))
    }

    static func parseISO8601(_ text: String) -> Date? {
        let withFraction = ISO8601DateFormatter()
        withFraction.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = withFraction.date(from: text) { return date }
        return ISO8601DateFormatter().date(from: text)
    }
}
