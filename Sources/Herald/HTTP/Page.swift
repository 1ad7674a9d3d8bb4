import HeraldCore
import Hummingbird

/// `?limit=&cursor=` of the registry's lists: limit 1–1000 (default 100), cursor as a previous page gave it.
struct Page {
    var limit = 100
    var cursor: Int64?

    init(_ request: Request) throws(HeraldFault) {
        let query = try QueryParameters(request)
        limit = try Self.limit(query)
        cursor = try Self.cursor(query)
    }
}

extension Page {
    /// `?cursor=`: a key a previous page gave (nil when absent or empty).
    static func cursor(_ query: QueryParameters) throws(HeraldFault) -> Int64? {
        guard let text = query["cursor"], !text.isEmpty else { return nil }
        guard let value = Int64(text), value > 0 else { throw .invalidParameter("cursor", "not a cursor this list gave") }
        return value
    }

    /// `?limit=`: 1–1000, 100 when absent.
    static func limit(_ query: QueryParameters) throws(HeraldFault) -> Int {
        guard let text = query["limit"] else { return 100 }
        guard let value = Int(text), (1...1000).contains(value) else {
            throw .invalidParameter("limit", "expected a whole number from 1 to 1000")
        }
        return value
    }
}
