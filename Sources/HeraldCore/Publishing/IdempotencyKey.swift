/// A publish's `Idempotency-Key` header, checked: 1 to 255 printable ASCII characters (space to `~`).
///
/// A client that sends one with a publish can retry it (after a timeout, or a 503 from a database failover
/// whose COMMIT may have landed) without publishing twice: within `lifetimeMilliseconds` the app's key
/// answers what its first request answered. Keys are the app's own: another app's same key is another key.
public struct IdempotencyKey: Sendable, Hashable, CustomStringConvertible {
    /// The header's name, as the faults and the documents name it.
    public static let headerName = "Idempotency-Key"
    /// The longest key.
    public static let limit = 255
    /// How long a key is honoured after its first request: 24 hours.
    public static let lifetimeMilliseconds: Int64 = 86_400_000

    public let rawValue: String

    /// Checks a header value: empty or with a character outside printable ASCII is 8008, longer than
    /// `limit` is 8000, both naming the header.
    public init(validating value: String) throws(HeraldFault) {
        if value.isEmpty {
            throw .invalidParameter(Self.headerName, "the key is empty; send 1 to \(Self.limit) printable ASCII characters")
        }
        if !value.allUTF8Bytes({ $0 >= 0x20 && $0 <= 0x7E }) {
            throw .invalidParameter(Self.headerName, "only printable ASCII characters (space to ~) are allowed")
        }
        if value.utf8.count > Self.limit { throw .tooLong(property: Self.headerName, length: value.utf8.count, limit: Self.limit) }
        rawValue = value
    }

    /// The key of a request's `Idempotency-Key` values (each time the header appears): nil when it has none,
    /// 8008 when it appears more than once (a proxy could read the other one).
    public init?(headerValues values: [String]) throws(HeraldFault) {
        guard let first = values.first else { return nil }
        if values.count > 1 { throw .invalidParameter(Self.headerName, "the header is given \(values.count) times; send it once") }
        try self.init(validating: first)
    }

    public var description: String { rawValue }
}

extension HeraldFault {
    /// 5090 (Herald's): an `Idempotency-Key` that the app used within 24 hours for another request (another
    /// route, channel or body). HTTP 422, as the IETF's Idempotency-Key draft answers it.
    public static func idempotencyKeyReused(_ key: IdempotencyKey) -> HeraldFault {
        HeraldFault(
            code: 5090, kind: .unprocessable,
            message:
                "Idempotency-Key '\(key.rawValue.prefix(64))' was used within 24 hours for a different request "
                + "(another route, channel or body); send a new key for a new request")
    }
}
