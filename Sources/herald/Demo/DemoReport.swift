import HeraldCore

/// The table at the end of the demo: Herald's delivery counts per channel and in total, split by
/// platform (one column per push service) where it matters, and the rate over each fan-out (from the
/// publish request to the poll that saw it published).
struct DemoReport {
    let publications: [DemoPublication]

    struct Row {
        let name: String
        let targeted: Int
        /// Sent through each push service.
        let sentThrough: [PushProvider: Int]
        let failed: Int
        let removed: Int
        /// Tokens removed because each push service called them gone.
        let removedThrough: [PushProvider: Int]
        let time: Duration

        var sent: Int { sentThrough.values.reduce(0, +) }

        func sent(through provider: PushProvider) -> Int { sentThrough[provider] ?? 0 }
        func removed(through provider: PushProvider) -> Int { removedThrough[provider] ?? 0 }
    }

    var rows: [Row] {
        publications.map { publication in
            let counts = publication.last?.deliveries
            func each(_ value: (DemoPublication.Status.Platform) -> Int) -> [PushProvider: Int] {
                Dictionary(
                    uniqueKeysWithValues: PushProvider.allCases.map { provider in
                        (provider, counts.map { value($0.through(provider)) } ?? 0)
                    })
            }
            return Row(
                name: publication.channel, targeted: counts?.targeted ?? 0, sentThrough: each(\.sent), failed: counts?.failed ?? 0,
                removed: counts?.tokensRemoved ?? 0, removedThrough: each(\.tokensRemoved), time: publication.fanOutTime ?? .zero)
        }
    }

    /// All channels together, over the time from the first publish to the last message published.
    var total: Row {
        let rows = rows
        let first = publications.map(\.publishedAt).min() ?? .now
        let last = publications.compactMap(\.finishedAt).max() ?? first
        func sum(_ value: (Row) -> Int) -> Int { rows.reduce(0) { $0 + value($1) } }
        func each(_ value: (Row, PushProvider) -> Int) -> [PushProvider: Int] {
            Dictionary(uniqueKeysWithValues: PushProvider.allCases.map { provider in (provider, sum { value($0, provider) }) })
        }
        return Row(
            name: "total", targeted: sum(\.targeted), sentThrough: each { $0.sent(through: $1) }, failed: sum(\.failed),
            removed: sum(\.removed), removedThrough: each { $0.removed(through: $1) }, time: last - first)
    }

    /// The platform a push service's column is headed with (iOS, Android, Web).
    static func platformName(_ provider: PushProvider) -> String {
        provider.systems.first?.displayName ?? provider.displayName
    }

    var lines: [String] {
        let platforms = PushProvider.allCases.enumerated().map { index, provider in
            (index == 0 ? "sent " : "") + Self.platformName(provider)
        }
        let header = ["channel", "targeted"] + platforms + ["failed", "tokens removed", "fan-out", "notifications/s"]
        let widths = [8, 9] + platforms.map { max($0.count + 1, 8) } + [7, 15, 9, 16]
        func format(_ cells: [String]) -> String {
            "  "
                + zip(cells, widths).enumerated().map { index, cell in
                    index == 0 ? DemoFormat.left(cell.0, cell.1) : DemoFormat.right(cell.0, cell.1)
                }.joined(separator: " ")
        }
        func cells(_ row: Row) -> [String] {
            [row.name, DemoFormat.count(row.targeted)] + PushProvider.allCases.map { DemoFormat.count(row.sent(through: $0)) }
                + [
                    DemoFormat.count(row.failed), DemoFormat.count(row.removed), DemoFormat.seconds(row.time, digits: 2),
                    DemoFormat.rate(row.targeted, over: row.time),
                ]
        }
        let rule = "  " + String(repeating: "-", count: widths.reduce(widths.count - 1, +))
        return [format(header), rule] + rows.map { format(cells($0)) } + [rule, format(cells(total))]
    }
}
