/// The table at the end of the demo: Herald's delivery counts per channel and in total, split by
/// platform where it matters, and the rate over each fan-out (from the publish request to the poll that
/// saw it published).
struct DemoReport {
    let publications: [DemoPublication]

    struct Row {
        let name: String
        let targeted: Int
        let iosSent: Int
        let androidSent: Int
        let failed: Int
        let removed: Int
        let androidRemoved: Int
        let time: Duration

        var sent: Int { iosSent + androidSent }
    }

    var rows: [Row] {
        publications.map { publication in
            let counts = publication.last?.deliveries
            return Row(
                name: publication.channel, targeted: counts?.targeted ?? 0, iosSent: counts?.byPlatform.ios.sent ?? 0,
                androidSent: counts?.byPlatform.android.sent ?? 0, failed: counts?.failed ?? 0,
                removed: counts?.tokensRemoved ?? 0, androidRemoved: counts?.byPlatform.android.tokensRemoved ?? 0,
                time: publication.fanOutTime ?? .zero)
        }
    }

    /// All channels together, over the time from the first publish to the last message published.
    var total: Row {
        let rows = rows
        let first = publications.map(\.publishedAt).min() ?? .now
        let last = publications.compactMap(\.finishedAt).max() ?? first
        func sum(_ value: (Row) -> Int) -> Int { rows.reduce(0) { $0 + value($1) } }
        return Row(
            name: "total", targeted: sum(\.targeted), iosSent: sum(\.iosSent), androidSent: sum(\.androidSent),
            failed: sum(\.failed), removed: sum(\.removed), androidRemoved: sum(\.androidRemoved), time: last - first)
    }

    var lines: [String] {
        let header = ["channel", "targeted", "sent iOS", "Android", "failed", "tokens removed", "fan-out", "notifications/s"]
        let widths = [8, 9, 9, 8, 7, 15, 9, 16]
        func format(_ cells: [String]) -> String {
            "  "
                + zip(cells, widths).enumerated().map { index, cell in
                    index == 0 ? DemoFormat.left(cell.0, cell.1) : DemoFormat.right(cell.0, cell.1)
                }.joined(separator: " ")
        }
        func cells(_ row: Row) -> [String] {
            [
                row.name, DemoFormat.count(row.targeted), DemoFormat.count(row.iosSent), DemoFormat.count(row.androidSent),
                DemoFormat.count(row.failed), DemoFormat.count(row.removed), DemoFormat.seconds(row.time, digits: 2),
                DemoFormat.rate(row.targeted, over: row.time),
            ]
        }
        let rule = "  " + String(repeating: "-", count: widths.reduce(widths.count - 1, +))
        return [format(header), rule] + rows.map { format(cells($0)) } + [rule, format(cells(total))]
    }
}
