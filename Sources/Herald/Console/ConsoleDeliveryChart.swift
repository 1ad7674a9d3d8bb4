import HeraldCharts
import HeraldCore
import HeraldStore

/// The Overview's delivery charts: per push service with anything in the window, sent, failed by class
/// and tokens removed per minute over the last hour or per hour over the last 7 days, drawn on the server
/// (HeraldCharts), with a legend, an accessible summary and the same numbers in a table. One statistics
/// query (`MessageStore.deliveryStats`), at most a few thousand rows; nothing per device.
extension ConsoleRoutes {
    /// The two windows the Overview offers (`?range=`).
    enum DeliveryRange: String, CaseIterable, Sendable {
        case hour = "1h"
        case week = "7d"

        var step: StatsStep { self == .hour ? .minute : .hour }
        var buckets: Int { self == .hour ? 60 : 168 }
        var title: String { self == .hour ? "Last hour" : "Last 7 days" }
        var phrase: String { self == .hour ? "per minute over the last hour" : "per hour over the last 7 days" }
        var empty: String { self == .hour ? "Nothing was sent in the last hour." : "Nothing was sent in the last 7 days." }
    }

    /// The series every chart stacks, in the legend's order: sent; the failures by class; tokens removed.
    static let sentSeries = ChartSeries(key: "sent", label: "Sent", fill: .solid("#1f5fbf"))
    static let failureSeries: [FailureClass: ChartSeries] = [
        .invalidToken: ChartSeries(
            key: "invalid-token", label: FailureClass.invalidToken.label, fill: .lines(colour: "#b3261e", ground: "#f9dedc", angle: 45)),
        .throttled: ChartSeries(key: "throttled", label: FailureClass.throttled.label, fill: .dots(colour: "#8a5a00", ground: "#fdebd0")),
        .service: ChartSeries(
            key: "service", label: FailureClass.service.label, fill: .lines(colour: "#6a3d9a", ground: "#ece2f4", angle: 90)),
        .auth: ChartSeries(key: "auth", label: FailureClass.auth.label, fill: .crossHatch(colour: "#37474f", ground: "#e3e7ea")),
        .other: ChartSeries(key: "other", label: FailureClass.other.label, fill: .lines(colour: "#5b6677", ground: "#f4f6f9", angle: 0)),
    ]
    static let removedSeries = ChartSeries(key: "tokens-removed", label: "Tokens removed", fill: .solid("#1c2430"))

    /// One service's window: the tally of each bucket (zero where nothing happened).
    struct DeliverySeries {
        var provider: PushProvider
        var tallies: [DeliveryTally]
        var total: DeliveryTally { tallies.reduce(DeliveryTally(), +) }
    }

    /// The window's buckets (their starts) and each service's tallies, for the services with anything in it.
    func deliveryWindow(app: String, range: DeliveryRange, now: Timestamp) async throws -> (starts: [Timestamp], series: [DeliverySeries]) {
        let width = range.step.milliseconds
        let first = range.step.bucket(now).milliseconds - Int64(range.buckets - 1) * width
        let starts = (0..<range.buckets).map { Timestamp(milliseconds: first + Int64($0) * width) }
        // `to` is exclusive: the bucket `now` is in counts too.
        let points = try await messages.deliveryStats(
            app: app, from: Timestamp(milliseconds: first), to: now.adding(milliseconds: 1), step: range.step)
        var byProvider: [PushProvider: [DeliveryTally]] = [:]
        for point in points {
            guard point.at.milliseconds >= first, case let index = Int((point.at.milliseconds - first) / width), index < range.buckets
            else { continue }
            var tallies = byProvider[point.provider] ?? Array(repeating: DeliveryTally(), count: range.buckets)
            tallies[index] = tallies[index] + point.tally
            byProvider[point.provider] = tallies
        }
        let series = PushProvider.allCases.compactMap { provider in
            byProvider[provider].flatMap { tallies in
                tallies.allSatisfy(\.isZero) ? nil : DeliverySeries(provider: provider, tallies: tallies)
            }
        }
        return (starts, series)
    }

    /// The Overview's "Deliveries" section for `range`. The last hour is read and drawn each time (a few
    /// thousand rows at most). The 7 days add up every minute row of the last `stats.minuteHours` (48 hours
    /// × services × shards: up to a hundred thousand rows for an app whose big fan-outs run in many slices)
    /// and draw 168 buckets a service, so the section is kept a minute per app, as the device counts are.
    func deliverySection(app: String, range: DeliveryRange) async throws -> HTML {
        let now = clock.now
        guard range == .week else { return try await drawDeliverySection(app: app, range: range, now: now) }
        return try await deliveryWeeks.value(app, now: now) { try await drawDeliverySection(app: app, range: range, now: now) }.value
    }

    /// The section for `range` as of `now`.
    func drawDeliverySection(app: String, range: DeliveryRange, now: Timestamp) async throws -> HTML {
        let counted = now
        let (starts, series) = try await deliveryWindow(app: app, range: range, now: now)
        let tabs = HTML.join(
            DeliveryRange.allCases.map { option in
                option == range
                    ? "<li><a href=\"/console?range=\(option.rawValue)#deliveries\" aria-current=\"page\">\(option.title)</a></li>"
                    : "<li><a href=\"/console?range=\(option.rawValue)#deliveries\">\(option.title)</a></li>"
            })
        let header: HTML = """
            <h2 id="deliveries">Deliveries</h2>
            <nav class="kinds" aria-label="Chart window"><ul>\(tabs)</ul></nav>
            """
        guard !series.isEmpty else { return header + "<p class=\"empty\" id=\"deliveries-empty\">\(range.empty)</p>" }
        let legendItems = ([Self.sentSeries] + FailureClass.allCases.compactMap { Self.failureSeries[$0] } + [Self.removedSeries]).map {
            "<li>\(HTML(trusted: $0.swatch(idPrefix: "legend")))\($0.label)</li>" as HTML
        }
        let figures = series.map { chartFigure($0, starts: starts, range: range) }
        return header
            + """
            <ul class="legend" aria-label="Legend">\(legendItems)</ul>
            <p class="muted chart-note">Times in UTC. Failed sends are stacked by reason, each with a pattern of its own; tokens removed
            are among the invalid-token failures. Each chart has its own scale; its numbers are in the table under it.\(
                range == .week ? " Counted \(ConsolePage.time(counted)), again at most once a minute." as HTML : "")</p>
            <div class="charts">\(figures)</div>
            """
    }

    /// One service's chart, its summary and its table.
    func chartFigure(_ series: DeliverySeries, starts: [Timestamp], range: DeliveryRange) -> HTML {
        let name = series.provider.displayName
        let labels = starts.map { Self.bucketLabel($0, range: range) }
        let axis = starts.enumerated().compactMap { index, start -> (bucket: Int, text: String)? in
            Self.axisLabel(start, range: range).map { (index, $0) }
        }
        let classes = FailureClass.allCases
        let chart = BarChart(
            id: "chart-\(series.provider.rawValue)", title: "\(name), \(range.phrase)",
            summary: Self.summary(series, labels: labels, range: range),
            bucketLabels: labels, axisLabels: axis,
            panels: [
                BarChart.Panel(title: "Sent", series: [Self.sentSeries], values: series.tallies.map { [$0.sent] }, height: 80),
                BarChart.Panel(
                    title: "Failed, by reason", series: classes.compactMap { Self.failureSeries[$0] },
                    values: series.tallies.map { tally in classes.map { tally.failed[$0] ?? 0 } }, height: 60),
                BarChart.Panel(
                    title: "Tokens removed", series: [Self.removedSeries], values: series.tallies.map { [$0.tokensRemoved] }, height: 30),
            ])
        let rows = zip(starts, series.tallies).filter { !$0.1.isZero }.map { start, tally in
            Self.tallyRow(header: ConsolePage.time(start), tally)
        }
        let total = series.total
        return """
            <figure class="chart" data-provider="\(series.provider.rawValue)">
            <figcaption><strong>\(name)</strong>: \(total.sent.grouped) sent, \(total.failedTotal.grouped) failed, \(total.tokensRemoved.grouped) tokens removed</figcaption>
            \(HTML(trusted: chart.svg()))
            <details class="numbers"><summary>\(name) in numbers</summary>
            <table class="stats" data-provider="\(series.provider.rawValue)">
            <caption>\(name), \(range.phrase) (\(range.step == .minute ? "minutes" : "hours") with nothing sent left out)</caption>
            <thead><tr><th scope="col">\(range.step == .minute ? "Minute" : "Hour")</th><th scope="col" class="number">Sent</th>
            \(HTML.join(classes.map { "<th scope=\"col\" class=\"number\">\($0.label)</th>" }))
            <th scope="col" class="number">Tokens removed</th></tr></thead>
            <tbody>\(rows)</tbody>
            <tfoot>\(Self.tallyRow(header: "Total", total))</tfoot>
            </table>
            </details>
            </figure>
            """
    }

    static func tallyRow(header: HTML, _ tally: DeliveryTally) -> HTML {
        """
        <tr><th scope="row">\(header)</th><td class="number" data-column="sent">\(tally.sent.grouped)</td>\(HTML.join(FailureClass.allCases.map {
            "<td class=\"number\" data-column=\"\($0.rawValue)\">\((tally.failed[$0] ?? 0).grouped)</td>"
        }))<td class="number" data-column="tokens-removed">\(tally.tokensRemoved.grouped)</td></tr>
        """
    }

    /// The chart's description: the window's totals, the failures by reason and the busiest bucket.
    static func summary(_ series: DeliverySeries, labels: [String], range: DeliveryRange) -> String {
        let total = series.total
        let reasons = FailureClass.allCases.compactMap { failure in
            total.failed[failure].map { "\(failure.label.lowercased()) \($0.grouped)" }
        }
        var text = "\(series.provider.displayName), \(range.phrase): \(total.sent.grouped) sent, \(total.failedTotal.grouped) failed"
        if !reasons.isEmpty { text += " (\(reasons.joined(separator: ", ")))" }
        text += ", \(total.tokensRemoved.grouped) tokens removed."
        if let busiest = series.tallies.indices.max(by: { series.tallies[$0].sent < series.tallies[$1].sent }),
            series.tallies[busiest].sent > 0
        {
            text += " Busiest \(range.step.rawValue): \(labels[busiest]), \(series.tallies[busiest].sent.grouped) sent."
        }
        return text
    }

    /// A bucket in a tooltip: "12:05 UTC" (minutes) or "Mon 7 Dec 14:00 UTC" (hours).
    static func bucketLabel(_ start: Timestamp, range: DeliveryRange) -> String {
        let time = UTCText(start)
        return range == .week ? "\(time.weekday) \(time.date) \(time.clock) UTC" : "\(time.clock) UTC"
    }

    /// The time axis's label at a bucket, if it gets one: every ten minutes ("12:10"), or each midnight ("Mon 7").
    static func axisLabel(_ start: Timestamp, range: DeliveryRange) -> String? {
        let time = UTCText(start)
        switch range {
        case .hour: return time.minute % 10 == 0 ? time.clock : nil
        case .week: return time.hour == 0 ? "\(time.weekday) \(time.day)" : nil
        }
    }
}
