import HeraldCore
import SQLKit

extension Segment {
    /// The segment's conditions on the `devices` row aliased `d`, every value a bind parameter. A device
    /// without the field a condition reads fails it (NULL compares false).
    var sqlConditions: [SQLQueryString] {
        var conditions: [SQLQueryString] = []
        if let below = appVersionBelow { conditions.append("d.app_version_key < \(bind: below.key)") }
        if let atLeast = appVersionAtLeast { conditions.append("d.app_version_key >= \(bind: atLeast.key)") }
        if let locales, !locales.isEmpty {
            // Equal, or a prefix ending at a '-'. Tags hold only letters, digits and '-' (checked when the
            // segment was read), so the LIKE pattern has no wildcard of its own.
            let matches: [SQLQueryString] = locales.map { tag in
                let lower = tag.lowercased()
                return "LOWER(d.locale) = \(bind: lower) OR LOWER(d.locale) LIKE \(bind: lower + "-%")"
            }
            conditions.append("(\(matches.joined(separator: " OR ")))")
        }
        if let models = deviceModels, !models.isEmpty {
            let values: [any Encodable & Sendable] = models
            conditions.append("d.device_model IN (\(binds: values))")
        }
        if let since = seenSince { conditions.append("d.last_seen_at >= \(bind: since.milliseconds)") }
        return conditions
    }
}

extension Optional where Wrapped == Segment {
    /// `AND …` for each condition of the segment, or nothing.
    var sqlClause: SQLQueryString {
        guard case .some(let segment) = self else { return "" }
        return segment.sqlConditions.reduce(into: SQLQueryString("")) { clause, condition in clause = clause + " AND " + condition }
    }
}
