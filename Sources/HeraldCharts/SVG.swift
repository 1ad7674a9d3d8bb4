/// The few pieces every chart writes its SVG with: escaped text and attribute values, and numbers with no
/// more digits than a screen can show. Charts are strings built here, so a label from the database can never
/// become markup (the same rule as the console's `HTML`).
public enum SVG {
    /// `value` safe inside an element or a double-quoted attribute.
    public static func escape(_ value: String) -> String {
        var escaped = ""
        escaped.reserveCapacity(value.utf8.count)
        for character in value.unicodeScalars {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&#39;"
            default: escaped.unicodeScalars.append(character)
            }
        }
        return escaped
    }

    /// A coordinate or length: at most two decimals, without trailing zeros ("12", "12.5", "0.33").
    public static func number(_ value: Double) -> String {
        guard value.isFinite else { return "0" }
        let hundredths = (value * 100).rounded()
        if hundredths == 0 { return "0" }
        let whole = Int64(hundredths) / 100
        let rest = abs(Int64(hundredths) % 100)
        let sign = hundredths < 0 && whole == 0 ? "-" : ""
        if rest == 0 { return "\(sign)\(whole)" }
        return rest % 10 == 0 ? "\(sign)\(whole).\(rest / 10)" : "\(sign)\(whole).\(rest < 10 ? "0" : "")\(rest)"
    }

    /// An id or class name made of `value`'s letters, digits and dashes only (anything else becomes a dash).
    public static func identifier(_ value: String) -> String {
        String(value.lowercased().unicodeScalars.map { ("a"..."z").contains($0) || ("0"..."9").contains($0) ? Character($0) : "-" })
    }

    /// A colour attribute value: `#` and hex digits, else the ink colour (a chart's colours are its own
    /// constants, but an attribute never takes text it was not meant to).
    public static func colour(_ value: String) -> String {
        let digits = value.dropFirst()
        guard value.hasPrefix("#"), [3, 6].contains(digits.count), digits.allSatisfy(\.isHexDigit) else { return "#1c2430" }
        return value
    }

    /// An element with its attributes (escaped, in the order given) and content (already SVG, or nil: empty).
    static func element(_ name: String, _ attributes: [(String, String)], _ content: String? = nil) -> String {
        let list = attributes.map { " \($0.0)=\"\(escape($0.1))\"" }.joined()
        guard let content else { return "<\(name)\(list)/>" }
        return "<\(name)\(list)>\(content)</\(name)>"
    }
}
