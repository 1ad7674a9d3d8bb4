import HeraldCharts

/// A piece of HTML. Built by string interpolation in which every interpolated `String` (or number) is
/// escaped and only an interpolated `HTML` goes in as it is, so text from the database or a request can
/// never become markup.
struct HTML: ExpressibleByStringInterpolation, Sendable, Equatable {
    private(set) var text: String

    init(stringLiteral value: String) { text = value }

    init(stringInterpolation: Interpolation) { text = stringInterpolation.text }

    /// Markup that is known to be safe (built here, never from input).
    init(trusted: String) { text = trusted }

    struct Interpolation: StringInterpolationProtocol {
        var text = ""

        init(literalCapacity: Int, interpolationCount: Int) { text.reserveCapacity(literalCapacity * 2) }

        mutating func appendLiteral(_ literal: String) { text += literal }
        mutating func appendInterpolation(_ html: HTML) { text += html.text }
        mutating func appendInterpolation(_ value: String) { text += HTML.escape(value) }
        mutating func appendInterpolation(_ value: String?) { text += HTML.escape(value ?? "") }
        mutating func appendInterpolation(_ value: some BinaryInteger) { text += String(value) }
        mutating func appendInterpolation(_ parts: [HTML]) { for part in parts { text += part.text } }
    }

    /// `value` safe in an element or a double-quoted attribute: the charts' escaping, one rule for both.
    static func escape(_ value: String) -> String { SVG.escape(value) }

    static func + (lhs: HTML, rhs: HTML) -> HTML { HTML(trusted: lhs.text + rhs.text) }

    /// `parts` one after another.
    static func join(_ parts: [HTML]) -> HTML { HTML(trusted: parts.map(\.text).joined()) }
}

extension Int64 {
    /// With thousands separators: 1,234,567 (pages show counts this way; the browser's locale is not known).
    var grouped: String {
        let digits = String(self.magnitude)
        var out = ""
        for (index, character) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { out += "," }
            out.append(character)
        }
        return self < 0 ? "-" + out : out
    }
}
