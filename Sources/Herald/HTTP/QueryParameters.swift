import Foundation
import HeraldCore
import Hummingbird

/// A request's query parameters, decoded the way browsers and HTTP libraries encode them
/// (`application/x-www-form-urlencoded`): `+` is a space and `%2B` a plus.
///
/// Hummingbird's `uri.queryParameters` keeps a `+` as it is, so `?q=John%27s+iPhone` (what JavaScript's
/// `URLSearchParams` and Python's `requests` send) looked for "john's+iphone", and `?channels=a,+b` refused
/// `+b` as a channel name. Found by the OpenAPI fuzz run (scripts/fuzz-api.sh).
struct QueryParameters {
    private var values: [String: String] = [:]

    /// Decodes every parameter; a name or value with invalid percent-encoding is 8008, as in a path. When a
    /// name is repeated, the first value counts.
    init(_ request: Request) throws(HeraldFault) {
        try self.init(encoded: request.uri.query ?? "")
    }

    /// A form's body (`application/x-www-form-urlencoded`), decoded like a query.
    init(encoded query: String) throws(HeraldFault) {
        for pair in query.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = Self.decode(parts[0]) else { throw .invalidParameter("query", "bad percent-encoding") }
            guard let value = Self.decode(parts.count > 1 ? parts[1] : "") else {
                throw .invalidParameter(name, "bad percent-encoding")
            }
            if values[name] == nil { values[name] = value }
        }
    }

    subscript(name: String) -> String? { values[name] }

    /// Every parameter by name (the first value of a repeated one).
    var all: [String: String] { values }

    static func decode(_ text: Substring) -> String? {
        text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding
    }
}
