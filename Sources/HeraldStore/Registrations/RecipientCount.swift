import HeraldCore

/// How many devices a message would reach now: exact when walking the fan-out's own recipient query
/// finished within the time allowed, otherwise an estimate from the part walked (see `recipientCount`).
public struct RecipientCount: Sendable, Equatable {
    /// Devices by operating system.
    public var bySystem: [DeviceOS: Int64]
    /// Whether every page was counted; false: `bySystem` is scaled up from the pages counted in time.
    public var exact: Bool

    public init(bySystem: [DeviceOS: Int64], exact: Bool) {
        self.bySystem = bySystem
        self.exact = exact
    }

    public var total: Int64 { bySystem.values.reduce(0, +) }
}

extension RegistrationStore {
    /// Counts the recipients of `filter` with the query the fan-out pages with (`recipients`), page by
    /// page, for about `budget` (checked between pages, so a slow page can run past it). When the walk does not finish in time the count is an estimate: what
    /// was counted, scaled by the share of the key span (`recipientKeyRange`) the walk covered, which
    /// assumes the matching devices are spread evenly over the keys.
    public func recipientCount(
        app: String, filter: RecipientFilter, now: Timestamp, budget: Duration = .seconds(1), pageSize: Int = 5000
    ) async throws -> RecipientCount {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: budget)
        var counted: [DeviceOS: Int64] = [:]
        var cursor: Int64 = 0
        while true {
            let page = try await recipients(app: app, filter: filter, after: cursor, limit: pageSize, now: now)
            for recipient in page.items { counted[recipient.os, default: 0] += 1 }
            guard let next = page.next else { return RecipientCount(bySystem: counted, exact: true) }
            cursor = next
            if clock.now >= deadline { break }
        }
        guard let span = try await recipientKeyRange(app: app, filter: filter), cursor < span.upperBound else {
            return RecipientCount(bySystem: counted, exact: true)
        }
        let covered = Double(max(1, cursor - span.lowerBound + 1)) / Double(span.upperBound - span.lowerBound + 1)
        return RecipientCount(bySystem: counted.mapValues { Int64((Double($0) / covered).rounded()) }, exact: false)
    }
}
