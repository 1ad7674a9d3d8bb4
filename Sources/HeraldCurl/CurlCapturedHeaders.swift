/// The response headers a client asked curl to keep (`CurlOptions.capturedHeaders`), by lower-case name.
///
/// The names are the client's own list, shared by every answer, and the first two values are kept inline,
/// so reading an answer's headers allocates nothing but the values' text. Every APNs answer carries
/// `apns-id`; hashing it into a fresh dictionary cost about 1,500 instructions per notification under
/// callgrind (BENCHMARKS.md).
public struct CurlCapturedHeaders: Sendable, Equatable, ExpressibleByDictionaryLiteral {
    private var names: [String]
    private var first: String?
    private var second: String?
    /// The values of the third name on (no client asks for that many yet).
    private var rest: [String?] = []

    /// No value yet for any of `names` (lower case).
    init(names: [String]) { self.names = names }

    public init() { self.init(names: []) }

    public init(dictionaryLiteral elements: (String, String)...) {
        self.init(names: elements.map { $0.0.lowercased() })
        for (index, element) in elements.enumerated() { set(element.1, at: index) }
    }

    /// The value of the header `name` (lower case), if it arrived.
    public subscript(name: String) -> String? {
        guard let index = names.firstIndex(of: name) else { return nil }
        switch index {
        case 0: return first
        case 1: return second
        default: return index - 2 < rest.count ? rest[index - 2] : nil
        }
    }

    /// Sets the value of the `index`th name.
    mutating func set(_ value: String, at index: Int) {
        switch index {
        case 0: first = value
        case 1: second = value
        default:
            if rest.count < names.count - 2 { rest = Array(repeating: nil, count: names.count - 2) }
            rest[index - 2] = value
        }
    }

    /// Whether any value arrived.
    public var isEmpty: Bool { first == nil && second == nil && rest.allSatisfy { $0 == nil } }

    public static func == (lhs: Self, rhs: Self) -> Bool {
        Set(lhs.names + rhs.names).allSatisfy { lhs[$0] == rhs[$0] }
    }
}
