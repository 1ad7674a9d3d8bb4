import Foundation
import HTTPTypes
import HeraldCore
import HeraldStore
import Hummingbird

/// The Templates pages' form and a stored template, each way: the body the form saves (through
/// `PushTemplate`'s checks), the form's values from a template, the fields it keeps unshown, the
/// placeholders to ask for when sending, and an audience in words.
extension ConsoleRoutes {

    /// The template's body from the form: the form's fields set (or removed when empty) over the existing
    /// template's blocks, so fields the form does not show stay.
    static func templateBody(_ form: [String: String], existing: PushTemplate?) throws(HeraldFault) -> JSONValue {
        var blocks: [String: [String: JSONValue]] = [
            "ios": existing?.ios ?? [:], "android": existing?.android ?? [:], "web": existing?.web ?? [:],
        ]
        for item in templateFields {
            let text = (form[item.name] ?? "").trimmingCharacters(in: .whitespaces)
            if text.isEmpty {
                blocks[item.block]?[item.field] = nil
            } else if integerTemplateFields.contains(item.name) {
                guard let number = Int64(text) else { throw .invalidParameter("\(item.block).\(item.field)", "expected a whole number") }
                blocks[item.block]?[item.field] = .integer(number)
            } else {
                blocks[item.block]?[item.field] = .string(text)
            }
        }
        var body: [String: JSONValue] = [:]
        let message = form["message"] ?? ""
        if !message.isEmpty { body["message"] = .string(message) }
        if let ios = blocks["ios"], !ios.isEmpty { body["ios"] = .object(ios) }
        if let android = blocks["android"], !android.isEmpty { body["android"] = .object(android) }
        if let web = blocks["web"], !web.isEmpty { body["web"] = .object(web) }
        var audience: [String: JSONValue] = [:]
        let channels = Composition.list(form["channels"] ?? "")
        if !channels.isEmpty { audience["channels"] = .array(channels.map(JSONValue.string)) }
        // Systems no push service serves (WP, set through the API) have no checkbox: they are kept.
        let kept = (existing?.audience.systems ?? []).filter { !DeviceOS.served.contains($0) }.map(\.rawValue)
        let platforms = ((form["platforms"] ?? "").split(separator: " ").map(String.init) + kept).map(JSONValue.string)
        if !platforms.isEmpty { audience["os"] = .array(platforms) }
        if case .object(let stored) = existing?.body, case .object(let kept)? = stored["audience"], let segment = kept["segment"] {
            audience["segment"] = segment
        }
        if !audience.isEmpty { body["audience"] = .object(audience) }
        return .object(body)
    }

    /// The form's values for a stored template.
    static func formValues(_ template: PushTemplate) -> [String: String] {
        var values: [String: String] = ["message": template.message ?? ""]
        for item in templateFields {
            values[item.name] = block(item.block, of: template)[item.field]?.scalarText ?? ""
        }
        values["channels"] = template.audience.channels.map(\.rawValue).joined(separator: ", ")
        values["platforms"] = (template.audience.systems ?? []).map(\.rawValue).joined(separator: " ")
        return values
    }

    /// The template's fields the form does not show (kept when saving).
    static func keptFields(_ template: PushTemplate) -> [String] {
        let shown = Set(templateFields.map { "\($0.block).\($0.field)" })
        let keys =
            template.ios.keys.map { "ios.\($0)" } + template.android.keys.map { "android.\($0)" } + template.web.keys.map { "web.\($0)" }
        var kept = keys.filter { !shown.contains($0) }
        if template.audience.segment != nil { kept.append("audience.segment") }
        return kept.sorted()
    }

    /// The `{name}` placeholders in the template's texts, in order of first use.
    static func placeholders(_ template: PushTemplate) -> [String] {
        var texts = [template.message ?? ""]
        for block in [template.ios, template.android, template.web] {
            for key in block.keys.sorted() { if let text = block[key]?.scalarText { texts.append(text) } }
        }
        var found: [String] = []
        for text in texts {
            var rest = text[...]
            while let open = rest.firstIndex(of: "{") {
                let after = rest.index(after: open)
                guard let end = rest[after...].firstIndex(where: { $0 == "}" || $0 == "{" }) else { break }
                if rest[end] == "}", after < end {
                    let name = String(rest[after..<end])
                    if !found.contains(name) { found.append(name) }
                    rest = rest[rest.index(after: end)...]
                } else {
                    rest = rest[end...]
                }
            }
        }
        return found
    }

    static func audienceText(_ audience: PushTemplate.Audience) -> String {
        let channels =
            audience.channels.isEmpty
            ? "every device"
            : "channel\(audience.channels.count == 1 ? "" : "s") \(audience.channels.map(\.rawValue).joined(separator: ", "))"
        let systems = audience.systems.map { " (\($0.map(\.displayName).joined(separator: ", ")))" } ?? ""
        return channels + systems + (audience.segment == nil ? "" : ", in a segment")
    }
}
