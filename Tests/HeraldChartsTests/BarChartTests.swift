import Foundation
import Testing

@testable import HeraldCharts

/// The bar chart's SVG: a bar per series and bucket with something in it, heights in proportion on a round
/// scale, every label escaped, and the accessible name and description.
@Suite struct BarChartTests {
    static let sent = ChartSeries(key: "sent", label: "Sent", fill: .solid("#1f5fbf"))
    static let invalid = ChartSeries(
        key: "invalid_token", label: "Invalid token", fill: .lines(colour: "#b3261e", ground: "#f9dedc", angle: 45))
    static let throttled = ChartSeries(key: "throttled", label: "Throttled", fill: .dots(colour: "#8a5a00", ground: "#fdebd0"))

    /// The attributes of every `<rect class="bar …">` in `svg`, as name → value.
    static func bars(_ svg: String) -> [[String: String]] {
        svg.components(separatedBy: "<rect ").dropFirst().compactMap { part -> [String: String]? in
            let tag = String(part.prefix { $0 != ">" }).replacingOccurrences(of: "\"/", with: "\"")
            guard tag.contains("class=\"bar\"") else { return nil }
            var attributes: [String: String] = [:]
            for piece in tag.components(separatedBy: "\" ") {
                let pair = piece.split(separator: "=", maxSplits: 1)
                guard pair.count == 2 else { continue }
                attributes[String(pair[0]).trimmingCharacters(in: .whitespaces)] = String(pair[1]).replacingOccurrences(of: "\"", with: "")
            }
            return attributes
        }
    }

    func chart(_ panels: [BarChart.Panel], buckets: Int = 4) -> BarChart {
        BarChart(
            id: "apns", title: "APNs", summary: "What APNs did", bucketLabels: (0..<buckets).map { "12:0\($0) UTC" },
            axisLabels: [(0, "12:00"), (buckets - 1, "12:0\(buckets - 1)")], panels: panels)
    }

    @Test func eachSeriesInEachBucketWithAValueIsOneBar() {
        let svg = chart([
            BarChart.Panel(title: "Sent", series: [Self.sent], values: [[100], [0], [250], [50]]),
            BarChart.Panel(title: "Failed", series: [Self.invalid, Self.throttled], values: [[3, 1], [0, 0], [0, 2], [0, 0]]),
        ]).svg()
        let bars = Self.bars(svg)
        #expect(bars.filter { $0["data-series"] == "sent" }.map { $0["data-bucket"] } == ["0", "2", "3"])
        #expect(bars.filter { $0["data-series"] == "invalid-token" }.map { $0["data-value"] } == ["3"])
        #expect(bars.filter { $0["data-series"] == "throttled" }.map { $0["data-bucket"] } == ["0", "2"])
        #expect(bars.count == 6)
        #expect(svg.contains("<title>12:02 UTC: Sent 250</title>"), "\(svg)")
        #expect(svg.contains("<title>12:00 UTC: Invalid token 3, Throttled 1</title>"), "one tooltip for a bucket's stack")
    }

    @Test func heightsAreInProportionOnARoundScale() throws {
        let svg = chart([BarChart.Panel(title: "Sent", series: [Self.sent], values: [[1000], [500], [250], [0]], height: 100)]).svg()
        let heights = try Self.bars(svg).map { try #require(Double($0["height"] ?? "")) }
        // 1,000 tops a scale of 0…1,000 (a tick every 20 units: 0, 200, … 1k): the whole plot, then a half and a quarter.
        #expect(heights == [100, 50, 25])
        for tick in ["0", "200", "400", "600", "800", "1k"] { #expect(svg.contains(">\(tick)</text>"), "tick \(tick)") }
        let tops = try Self.bars(svg).map { try #require(Double($0["y"] ?? "")) + (Double($0["height"] ?? "") ?? 0) }
        #expect(Set(tops).count == 1, "every bar stands on the baseline: \(tops)")
    }

    @Test func stackedSeriesSitOnEachOther() throws {
        let svg = chart(
            [BarChart.Panel(title: "Failed", series: [Self.invalid, Self.throttled], values: [[30, 10]], height: 80)], buckets: 1
        )
        .svg()
        let bars = Self.bars(svg)
        let lower = try #require(bars.first { $0["data-series"] == "invalid-token" })
        let upper = try #require(bars.first { $0["data-series"] == "throttled" })
        // 40 on a scale of 0…40: 30 takes 60 of the 80, 10 the 20 above it.
        #expect(lower["height"] == "60" && upper["height"] == "20")
        #expect(Double(upper["y"]!)! + 20 == Double(lower["y"]!)!)
    }

    @Test func aTinyValueStillShowsAndAnEmptyPanelSaysSo() throws {
        let svg = chart([
            BarChart.Panel(title: "Sent", series: [Self.sent], values: [[100_000], [1], [0], [0]], height: 90),
            BarChart.Panel(title: "Failed", series: [Self.invalid], values: [[0], [0], [0], [0]]),
        ]).svg()
        let bars = Self.bars(svg)
        #expect(bars.count == 2)
        #expect(bars.last?["height"] == "1", "one among 100,000 is a pixel, not nothing")
        #expect(svg.contains(">Failed: none</text>"))
    }

    @Test func aShortPanelHasFewerTicks() {
        let svg = chart([BarChart.Panel(title: "Removed", series: [Self.sent], values: [[5], [3], [0], [0]], height: 30)]).svg()
        #expect(svg.components(separatedBy: #"class="tick""#).count - 1 == 2, "0 and 5 only in 30 units: \(svg)")
        #expect(svg.contains(">5</text>"))
        #expect(!svg.contains("data-series=\"invalid-token\""))
    }

    @Test func labelsAndTitlesAreEscapedAndPatternsReferenced() {
        let svg = BarChart(
            id: "web<push>", title: "Web \"Push\" <script>", summary: "a & b", bucketLabels: ["<now>"], axisLabels: [(0, "<b>")],
            panels: [BarChart.Panel(title: "Failed <x>", series: [Self.invalid], values: [[1]])]
        ).svg()
        #expect(!svg.contains("<script>") && !svg.contains("<b>") && !svg.contains("<now>") && !svg.contains("<x>"))
        #expect(svg.contains("Web &quot;Push&quot; &lt;script&gt;") && svg.contains("a &amp; b") && svg.contains("&lt;b&gt;"))
        #expect(svg.contains(#"role="img""#) && svg.contains(#"aria-labelledby="web-push--title web-push--desc""#))
        #expect(svg.contains(#"<pattern id="web-push--invalid-token""#) && svg.contains(#"fill="url(#web-push--invalid-token)""#))
        #expect(!svg.contains("style="), "no style attribute: the console's CSP refuses inline styles")
    }

    @Test func axisLabelsSitUnderTheirBuckets() {
        let chart = chart([BarChart.Panel(title: "Sent", series: [Self.sent], values: [[1], [1], [1], [1]])])
        let svg = chart.svg()
        let (x, width) = chart.slot(3)
        #expect(svg.contains(#"x="\#(SVG.number(x + width / 2))" y=""#), "\(svg)")
        #expect(svg.contains(">12:03</text>") && svg.contains(">12:00</text>"))
    }

    @Test func axisLabelsStayInsideAndApart() {
        let buckets = 60
        let chart = BarChart(
            id: "c", title: "", summary: "", bucketLabels: (0..<buckets).map { "\($0)" },
            axisLabels: (0..<buckets).map { ($0, "12:\($0 < 10 ? "0" : "")\($0)") },
            panels: [BarChart.Panel(title: "Sent", series: [Self.sent], values: Array(repeating: [1], count: buckets))])
        let svg = chart.svg()
        let labels = svg.components(separatedBy: #"<text x=""#).dropFirst().filter { $0.contains(#"class="axis-label""#) }
        let xs = labels.compactMap { Double($0.prefix { $0 != "\"" }) }
        #expect(xs.count > 4 && xs.count < buckets, "some labels left out: \(xs.count)")
        #expect(zip(xs, xs.dropFirst()).allSatisfy { $1 - $0 >= 5 * 12 * 0.6 }, "apart: \(xs)")
        #expect((xs.first ?? 0) >= BarChart.left + 15 && (xs.last ?? .infinity) <= chart.width - BarChart.right - 15, "inside: \(xs)")
        #expect(svg.components(separatedBy: "<line x1=").count - 1 >= buckets, "every bucket asked for keeps its tick")
    }
}
