/// Events on a time axis in lanes (a device's deliveries: sent, failed, token removed; its launches), each
/// lane with a shape of its own, so a lane is told by its shape and its row as well as its colour. Events
/// carry a tooltip and `data-lane`; the axis is labelled where the caller says.
public struct Timeline: Sendable {
    public enum Mark: String, Sendable, CaseIterable {
        case circle, square, cross, diamond, triangle
    }

    public struct Lane: Sendable {
        public var key: String
        public var label: String
        public var mark: Mark
        public var colour: String

        public init(key: String, label: String, mark: Mark, colour: String) {
            self.key = SVG.identifier(key)
            self.label = label
            self.mark = mark
            self.colour = colour
        }
    }

    public struct Event: Sendable {
        /// Its lane's index.
        public var lane: Int
        /// When, in any unit the axis uses too (the console: epoch milliseconds).
        public var at: Double
        public var label: String

        public init(lane: Int, at: Double, label: String) {
            self.lane = lane
            self.at = at
            self.label = label
        }
    }

    public var id: String
    public var title: String
    public var summary: String
    public var lanes: [Lane]
    public var events: [Event]
    /// The axis's span; events outside it are left out.
    public var range: ClosedRange<Double>
    public var axisLabels: [(at: Double, text: String)]
    public var width: Double

    public init(
        id: String, title: String, summary: String, lanes: [Lane], events: [Event], range: ClosedRange<Double>,
        axisLabels: [(at: Double, text: String)], width: Double = 400
    ) {
        self.id = SVG.identifier(id)
        self.title = title
        self.summary = summary
        self.lanes = lanes
        self.events = events
        self.range = range
        self.axisLabels = axisLabels
        self.width = width
    }

    static let left = 80.0
    static let right = 10.0
    static let laneHeight = 24.0

    /// Where time `at` lies across the plot.
    func x(_ at: Double) -> Double {
        let span = range.upperBound - range.lowerBound
        let fraction = span > 0 ? (at - range.lowerBound) / span : 0.5
        return Self.left + min(1, max(0, fraction)) * (width - Self.left - Self.right)
    }

    public func svg() -> String {
        var body = ""
        for (index, lane) in lanes.enumerated() {
            let y = Double(index) * Self.laneHeight + Self.laneHeight / 2 + 2
            body += SVG.element(
                "line",
                [
                    ("x1", SVG.number(Self.left)), ("x2", SVG.number(width - Self.right)), ("y1", SVG.number(y)), ("y2", SVG.number(y)),
                    ("stroke", "#d9dee6"), ("stroke-width", "1"),
                ])
            body += SVG.element(
                "text", [("x", SVG.number(Self.left - 8)), ("y", SVG.number(y + 4)), ("text-anchor", "end"), ("class", "lane-label")],
                SVG.escape(lane.label))
        }
        for event in events where lanes.indices.contains(event.lane) && range.contains(event.at) {
            let lane = lanes[event.lane]
            let y = Double(event.lane) * Self.laneHeight + Self.laneHeight / 2 + 2
            body += mark(lane, x: x(event.at), y: y, label: event.label)
        }
        let axis = Double(lanes.count) * Self.laneHeight + 4
        body += SVG.element(
            "line",
            [
                ("x1", SVG.number(Self.left)), ("x2", SVG.number(width - Self.right)), ("y1", SVG.number(axis)), ("y2", SVG.number(axis)),
                ("stroke", "#5b6677"), ("stroke-width", "1"),
            ])
        for label in axisLabels where range.contains(label.at) {
            let at = x(label.at)
            let anchor = at < Self.left + 30 ? "start" : at > width - 40 ? "end" : "middle"
            body +=
                SVG.element(
                    "line",
                    [
                        ("x1", SVG.number(at)), ("x2", SVG.number(at)), ("y1", SVG.number(axis)), ("y2", SVG.number(axis + 4)),
                        ("stroke", "#5b6677"), ("stroke-width", "1"),
                    ])
                + SVG.element(
                    "text", [("x", SVG.number(at)), ("y", SVG.number(axis + 15)), ("text-anchor", anchor), ("class", "axis-label")],
                    SVG.escape(label.text))
        }
        let height = axis + 20
        return SVG.element(
            "svg",
            [
                ("xmlns", "http://www.w3.org/2000/svg"), ("class", "timeline-svg"),
                ("viewBox", "0 0 \(SVG.number(width)) \(SVG.number(height))"), ("role", "img"),
                ("aria-labelledby", "\(id)-title \(id)-desc"), ("font-family", "system-ui, sans-serif"), ("font-size", "12"),
                ("data-chart", id),
            ],
            SVG.element("title", [("id", "\(id)-title")], SVG.escape(title))
                + SVG.element("desc", [("id", "\(id)-desc")], SVG.escape(summary)) + body)
    }

    /// One event's shape, centred on (`x`, `y`), with its tooltip.
    func mark(_ lane: Lane, x: Double, y: Double, label: String) -> String {
        let colour = SVG.colour(lane.colour)
        let r = 5.0
        let common: [(String, String)] = [("class", "event lane-\(lane.key)"), ("data-lane", lane.key)]
        let title = SVG.element("title", [], SVG.escape(label))
        func at(_ dx: Double, _ dy: Double) -> String { "\(SVG.number(x + dx)),\(SVG.number(y + dy))" }
        switch lane.mark {
        case .circle:
            return SVG.element(
                "circle", [("cx", SVG.number(x)), ("cy", SVG.number(y)), ("r", SVG.number(r)), ("fill", colour)] + common, title)
        case .square:
            return SVG.element(
                "rect",
                [
                    ("x", SVG.number(x - r)), ("y", SVG.number(y - r)), ("width", SVG.number(2 * r)), ("height", SVG.number(2 * r)),
                    ("fill", colour),
                ] + common, title)
        case .cross:
            return SVG.element(
                "path",
                [
                    ("d", "M\(at(-r, -r)) L\(at(r, r)) M\(at(r, -r)) L\(at(-r, r))"), ("stroke", colour), ("stroke-width", "2.5"),
                    ("fill", "none"),
                ] + common, title)
        case .diamond:
            return SVG.element(
                "polygon", [("points", "\(at(0, -r - 1)) \(at(r + 1, 0)) \(at(0, r + 1)) \(at(-r - 1, 0))"), ("fill", colour)] + common,
                title)
        case .triangle:
            return SVG.element(
                "polygon", [("points", "\(at(0, -r - 1)) \(at(r + 1, r)) \(at(-r - 1, r))"), ("fill", colour)] + common, title)
        }
    }
}
