/// A small line of values evenly spaced in time (a fan-out's sends per second), filled below, its highest
/// point marked, scaled from 0 to that highest value. More values than the width has pixels are averaged in
/// groups, so a long fan-out stays a small SVG.
public struct Sparkline: Sendable {
    public var id: String
    public var values: [Double]
    /// Its accessible name: what the line shows, with the figures a reader needs (peak, average, duration).
    public var label: String
    public var width: Double
    public var height: Double

    public init(id: String, values: [Double], label: String, width: Double = 240, height: Double = 40) {
        self.id = SVG.identifier(id)
        self.values = values
        self.label = label
        self.width = width
        self.height = height
    }

    /// The values it draws: at most one per pixel of width (the mean of each group).
    var points: [Double] {
        let limit = max(2, Int(width))
        guard values.count > limit else { return values }
        let group = Double(values.count) / Double(limit)
        return (0..<limit).map { index in
            let start = Int((Double(index) * group).rounded(.down))
            let end = max(start + 1, min(values.count, Int((Double(index + 1) * group).rounded(.down))))
            return values[start..<end].reduce(0, +) / Double(end - start)
        }
    }

    public func svg() -> String {
        let points = points
        let top = (points.max() ?? 0) > 0 ? points.max()! : 1
        // Room for the peak's dot, which sits on the top edge.
        let pad = 3.5
        let step = points.count > 1 ? (width - 2 * pad) / Double(points.count - 1) : 0
        func x(_ index: Int) -> Double { points.count > 1 ? pad + Double(index) * step : width / 2 }
        func y(_ value: Double) -> Double { height - pad - max(0, value) / top * (height - 2 * pad) }
        let line = points.enumerated().map { "\(SVG.number(x($0.offset))),\(SVG.number(y($0.element)))" }.joined(separator: " ")
        var content = SVG.element("title", [("id", "\(id)-title")], SVG.escape(label))
        if !points.isEmpty {
            let area =
                "\(SVG.number(x(0))),\(SVG.number(height - pad)) \(line) \(SVG.number(x(points.count - 1))),\(SVG.number(height - pad))"
            content += SVG.element("polygon", [("points", area), ("fill", "#dbe6f7"), ("class", "spark-area")])
            content += SVG.element(
                "polyline",
                [("points", line), ("fill", "none"), ("stroke", "#1f5fbf"), ("stroke-width", "1.5"), ("class", "spark-line")])
            let peak = points.firstIndex(of: points.max()!) ?? 0
            content += SVG.element(
                "circle",
                [
                    ("cx", SVG.number(x(peak))), ("cy", SVG.number(y(points[peak]))), ("r", "2.5"), ("fill", "#1c2430"),
                    ("class", "spark-peak"),
                ])
        }
        return SVG.element(
            "svg",
            [
                ("xmlns", "http://www.w3.org/2000/svg"), ("class", "sparkline"),
                ("viewBox", "0 0 \(SVG.number(width)) \(SVG.number(height))"), ("width", SVG.number(width)),
                ("height", SVG.number(height)), ("role", "img"), ("aria-labelledby", "\(id)-title"), ("data-points", "\(points.count)"),
            ], content)
    }
}
