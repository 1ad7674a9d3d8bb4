/// The few pieces every chart writes its SVG with: escaped text and attribute values, and numbers with no
/// more digits than a screen can show. Charts are strings built here, so a label from the database can never
/// become markup (the same rule as the console's `HTML`).
public enum SVG {
    /// `value` safe inside an element or a double-quoted attribute.
    public static func escape(_ value: String) -> String {
        // Most values (numbers, ids, plain words) have nothing to escape: returned as they are.
        guard value.utf8.contains(where: { $0 == 0x26 || $0 == 0x3C || $0 == 0x3E || $0 == 0x22 || $0 == 0x27 }) else { return value }
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
        var out = "<"
        out += name
        for (key, value) in attributes {
            out += " "
            out += key
            out += "=\""
            out += escape(value)
            out += "\""
        }
        guard let content else { return out + "/>" }
        out += ">"
        out += content
        out += "</"
        out += name
        return out + ">"
    }
}
