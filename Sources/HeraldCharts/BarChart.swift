/// Bars over time, in panels one above the other that share the time axis: each panel stacks its series in
/// every bucket against a value axis of its own with round ticks (so a panel of failures is not flattened by
/// one of sends a thousand times larger). A bucket's bars carry `data-bucket`, `data-series` and
/// `data-value`, and its stack one tooltip; a panel with nothing in it is one line saying so. Each bar is
/// one short element (168 hours of seven series stay a few hundred kilobytes at most).
public struct BarChart: Sendable {
    public struct Panel: Sendable {
        public var title: String
        public var series: [ChartSeries]
        /// Per bucket, one value per series (in `series` order; missing ones count as 0).
        public var values: [[Int64]]
        /// The plot's height (the title above it takes 16 more).
        public var height: Double

        public init(title: String, series: [ChartSeries], values: [[Int64]], height: Double = 90) {
            self.title = title
            self.series = series
            self.values = values
            self.height = height
        }

        /// The stacked total of each bucket.
        var totals: [Int64] { values.map { $0.reduce(0, +) } }
        var isEmpty: Bool { totals.allSatisfy { $0 == 0 } }
    }

    /// Unique on its page: the prefix of its elements' ids (patterns, title).
    public var id: String
    public var title: String
    /// What it shows, in words: its accessible description.
    public var summary: String
    /// Each bucket's name in tooltips ("12:05 UTC"); its count is the number of buckets.
    public var bucketLabels: [String]
    /// The time axis's labels: (bucket, text), under the bucket's bar.
    public var axisLabels: [(bucket: Int, text: String)]
    public var panels: [Panel]
    public var width: Double

    public init(
        id: String, title: String, summary: String, bucketLabels: [String], axisLabels: [(bucket: Int, text: String)],
        panels: [Panel], width: Double = 380
    ) {
        self.id = SVG.identifier(id)
        self.title = title
        self.summary = summary
        self.bucketLabels = bucketLabels
        self.axisLabels = axisLabels
        self.panels = panels
        self.width = width
    }

    static let left = 40.0
    static let right = 6.0
    static let titleHeight = 16.0
    static let gap = 10.0
    static let axisHeight = 20.0
    static let emptyHeight = 18.0

    /// Where bucket `index`'s bar goes: its left edge and width.
    func slot(_ index: Int) -> (x: Double, width: Double) {
        let plot = width - Self.left - Self.right
        let slot = plot / Double(max(1, bucketLabels.count))
        let bar = max(1, slot * 0.8)
        return (Self.left + slot * Double(index) + (slot - bar) / 2, bar)
    }

    /// The SVG: `role="img"`, titled and described, sized by its `viewBox` (the page's CSS scales it).
    public func svg() -> String {
        var body = ""
        var defs = ""
        var patterns = Set<String>()
        var top = 4.0
        for panel in panels {
            for series in panel.series where !patterns.contains(series.key) {
                patterns.insert(series.key)
                defs += series.fill.pattern(id: "\(id)-\(series.key)") ?? ""
            }
            if panel.isEmpty {
                body += SVG.element(
                    "text", [("x", SVG.number(Self.left)), ("y", SVG.number(top + 12)), ("class", "panel-title")],
                    SVG.escape("\(panel.title): none"))
                top += Self.emptyHeight + Self.gap
                continue
            }
            body += SVG.element(
                "text", [("x", SVG.number(Self.left)), ("y", SVG.number(top + 12)), ("class", "panel-title")], SVG.escape(panel.title))
            top += Self.titleHeight
            body += draw(panel, top: top)
            top += panel.height + Self.gap
        }
        let bottom = top - Self.gap
        body += axis(at: bottom)
        let height = bottom + Self.axisHeight
        return SVG.element(
            "svg",
            [
                ("xmlns", "http://www.w3.org/2000/svg"), ("class", "chart-svg"),
                ("viewBox", "0 0 \(SVG.number(width)) \(SVG.number(height))"),
                ("role", "img"), ("aria-labelledby", "\(id)-title \(id)-desc"), ("font-family", "system-ui, sans-serif"),
                ("font-size", "12"), ("data-chart", id),
            ],
            SVG.element("title", [("id", "\(id)-title")], SVG.escape(title))
                + SVG.element("desc", [("id", "\(id)-desc")], SVG.escape(summary))
                + (defs.isEmpty ? "" : "<defs>\(defs)</defs>") + body)
    }

    /// One panel's gridlines, tick labels and bars, its plot starting at `top`.
    func draw(_ panel: Panel, top: Double) -> String {
        // A tick every 20 units or more, so a short panel's labels do not run into each other.
        let scale = NiceScale(covering: Double(panel.totals.max() ?? 0), tickCount: max(1, Int(panel.height / 20)))
        let base = top + panel.height
        var out = ""
        for tick in scale.ticks {
            let y = base - scale.fraction(tick) * panel.height
            out += SVG.element(
                "line",
                [
                    ("x1", SVG.number(Self.left)), ("x2", SVG.number(width - Self.right)), ("y1", SVG.number(y)), ("y2", SVG.number(y)),
                    ("class", tick == 0 ? "baseline" : "grid"), ("stroke", tick == 0 ? "#5b6677" : "#d9dee6"), ("stroke-width", "1"),
                ])
            out += SVG.element(
                "text", [("x", SVG.number(Self.left - 4)), ("y", SVG.number(y + 4)), ("text-anchor", "end"), ("class", "tick")],
                NiceScale.label(tick))
        }
        for (index, values) in panel.values.enumerated() where index < bucketLabels.count {
            let (x, barWidth) = slot(index)
            var stacked = 0.0
            var bars = ""
            var named: [String] = []
            for (position, series) in panel.series.enumerated() {
                let value = position < values.count ? values[position] : 0
                guard value > 0 else { continue }
                // Never thinner than a pixel, so one failure among thousands still shows.
                let height = max(1, scale.fraction(Double(value)) * panel.height)
                let y = base - stacked - height
                stacked += height
                named.append("\(series.label) \(SVG.grouped(value))")
                bars += SVG.element(
                    "rect",
                    [
                        ("x", SVG.number(x)), ("y", SVG.number(y)), ("width", SVG.number(barWidth)), ("height", SVG.number(height)),
                        ("fill", series.fill.paint(id: "\(id)-\(series.key)")), ("class", "bar"), ("data-bucket", "\(index)"),
                        ("data-series", series.key), ("data-value", "\(value)"),
                    ])
            }
            guard !named.isEmpty else { continue }
            // One tooltip for the bucket's stack: its time and each series in it.
            out += "<g>" + SVG.element("title", [], SVG.escape("\(bucketLabels[index]): \(named.joined(separator: ", "))")) + bars + "</g>"
        }
        return out
    }

    /// The time axis under the last panel: a tick under each of `axisLabels`' buckets and its label centred
    /// there, moved inside the chart at its edges; a label that would run into the one before is left out.
    func axis(at y: Double) -> String {
        var out = ""
        var end = -Double.infinity
        for label in axisLabels where label.bucket >= 0 && label.bucket < bucketLabels.count {
            let (x, barWidth) = slot(label.bucket)
            let middle = x + barWidth / 2
            // About 0.6 em a character: enough to keep labels apart without measuring text.
            let half = Double(label.text.count) * 12 * 0.3
            let centre = min(max(middle, Self.left + half), width - Self.right - half)
            out += SVG.element(
                "line",
                [
                    ("x1", SVG.number(middle)), ("x2", SVG.number(middle)), ("y1", SVG.number(y)), ("y2", SVG.number(y + 4)),
                    ("stroke", "#5b6677"), ("stroke-width", "1"),
                ])
            guard centre - half >= end + 4 else { continue }
            end = centre + half
            out += SVG.element(
                "text", [("x", SVG.number(centre)), ("y", SVG.number(y + 16)), ("text-anchor", "middle"), ("class", "axis-label")],
                SVG.escape(label.text))
        }
        return out
    }
}

extension SVG {
    /// A count with thousands separators (1,234,567), as the console shows counts.
    public static func grouped(_ value: Int64) -> String {
        let digits = String(value.magnitude)
        var out = ""
        for (index, character) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { out += "," }
            out.append(character)
        }
        return value < 0 ? "-" + out : out
    }
}
