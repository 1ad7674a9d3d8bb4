/// One kind of value a chart draws (sent, a class of failure, …): its name, what it is called in the legend
/// and the tooltips, and how its bars are filled.
public struct ChartSeries: Sendable, Equatable {
    /// Its short name: the bars' `data-series` and class (`series-KEY`) and part of its pattern's id.
    public var key: String
    public var label: String
    public var fill: ChartFill

    public init(key: String, label: String, fill: ChartFill) {
        self.key = SVG.identifier(key)
        self.label = label
        self.fill = fill
    }

    /// A small square in the series' fill for a legend outside the chart, with a pattern of its own
    /// (`idPrefix` keeps its id apart from the charts' on the same page).
    public func swatch(idPrefix: String, size: Double = 14) -> String {
        let id = "\(SVG.identifier(idPrefix))-\(key)"
        let side = SVG.number(size)
        let defs = fill.pattern(id: id).map { "<defs>\($0)</defs>" } ?? ""
        return SVG.element(
            "svg",
            [
                ("xmlns", "http://www.w3.org/2000/svg"), ("class", "swatch"), ("width", side), ("height", side),
                ("viewBox", "0 0 \(side) \(side)"), ("aria-hidden", "true"), ("focusable", "false"),
            ],
            defs
                + SVG.element(
                    "rect",
                    [
                        ("x", "0.5"), ("y", "0.5"), ("width", SVG.number(size - 1)), ("height", SVG.number(size - 1)),
                        ("fill", fill.paint(id: id)), ("stroke", fill.edge), ("stroke-width", "1"),
                    ]))
    }
}

/// How a series' bars are filled: a colour, or a pattern of lines or dots on a light ground, so series are
/// told apart without colour (printed in grey, or by someone who does not see the colours).
public enum ChartFill: Sendable, Equatable {
    case solid(String)
    /// Lines at `angle` degrees (0 vertical, 45, 90 horizontal, 135), `colour` on `ground`.
    case lines(colour: String, ground: String, angle: Int)
    /// Lines both ways at 45° and 135°.
    case crossHatch(colour: String, ground: String)
    case dots(colour: String, ground: String)

    /// The colour of the series' edge (a pattern's lines, or the colour itself).
    public var edge: String {
        switch self {
        case .solid(let colour), .lines(let colour, _, _), .crossHatch(let colour, _), .dots(let colour, _): SVG.colour(colour)
        }
    }

    /// The `fill` attribute's value: the colour, or the pattern with `id`.
    func paint(id: String) -> String {
        if case .solid(let colour) = self { return SVG.colour(colour) }
        return "url(#\(id))"
    }

    /// The `<pattern>` element with `id` (nil for a colour).
    func pattern(id: String) -> String? {
        let size = 6.0
        func pattern(_ content: String, transform: String? = nil) -> String {
            var attributes = [
                ("id", id), ("width", SVG.number(size)), ("height", SVG.number(size)), ("patternUnits", "userSpaceOnUse"),
            ]
            if let transform { attributes.append(("patternTransform", transform)) }
            return SVG.element("pattern", attributes, content)
        }
        func ground(_ colour: String) -> String {
            SVG.element("rect", [("width", SVG.number(size)), ("height", SVG.number(size)), ("fill", SVG.colour(colour))])
        }
        func line(_ colour: String) -> String {
            SVG.element(
                "line",
                [("x1", "0"), ("y1", "0"), ("x2", "0"), ("y2", SVG.number(size)), ("stroke", SVG.colour(colour)), ("stroke-width", "3")])
        }
        switch self {
        case .solid:
            return nil
        case .lines(let colour, let background, let angle):
            return pattern(ground(background) + line(colour), transform: angle == 0 ? nil : "rotate(\(angle))")
        case .crossHatch(let colour, let background):
            let stroke = SVG.colour(colour)
            return pattern(
                ground(background)
                    + SVG.element("path", [("d", "M0,0 L6,6 M6,0 L0,6"), ("stroke", stroke), ("stroke-width", "1.2")]))
        case .dots(let colour, let background):
            return pattern(
                ground(background) + SVG.element("circle", [("cx", "3"), ("cy", "3"), ("r", "1.6"), ("fill", SVG.colour(colour))]))
        }
    }
}
