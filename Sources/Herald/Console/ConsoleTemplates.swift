import Foundation
import HTTPTypes
import HeraldCore
import HeraldStore
import Hummingbird

/// The console's Templates pages: the app's push templates (list, create, edit with an iOS and Android
/// preview, delete, send with values), on the stores and checks the admin template routes use
/// (`PushTemplate` validates, `PushTemplateRoutes.send` sends), so the console saves and sends nothing
/// the API would refuse.
///
/// The form edits the fields most templates use; the others a template may hold (actions, custom
/// headers, lights, a segment, …) are kept as they are and listed, for the admin API to change.
extension ConsoleRoutes {
    /// The form's fields that are a platform block's fields: (form name, block, field, label).
    static let templateFields: [(name: String, block: String, field: String, label: String)] = [
        ("ios-alertTitle", "ios", "alertTitle", "Title"), ("ios-alertSubtitle", "ios", "alertSubtitle", "Subtitle"),
        ("ios-sound", "ios", "sound", "Sound"), ("ios-badge", "ios", "badge", "Badge"),
        ("ios-attachmentUrl", "ios", "attachmentUrl", "Attachment URL"),
        ("android-contentTitle", "android", "contentTitle", "Title"),
        ("android-summarySubText", "android", "summarySubText", "Summary text"),
        ("android-icon", "android", "icon", "Icon"), ("android-sound", "android", "sound", "Sound"),
        ("android-priority", "android", "priority", "Priority (1 to 5)"),
        ("web-title", "web", "title", "Title (else Android's or iOS's)"), ("web-icon", "web", "icon", "Icon URL"),
        ("web-url", "web", "url", "Page a click opens"),
    ]

    /// A template's block by its name in `templateFields`.
    static func block(_ name: String, of template: PushTemplate?) -> [String: JSONValue] {
        switch name {
        case "ios": template?.ios ?? [:]
        case "android": template?.android ?? [:]
        default: template?.web ?? [:]
        }
    }

    /// The first of `texts` that is not empty (the browser preview's title falls back so).
    static func firstNonEmpty(_ texts: String...) -> String { texts.first { !$0.isEmpty } ?? "" }

    static let integerTemplateFields: Set<String> = ["ios-badge", "android-priority"]

    func templatesPage(_ console: ConsoleRequest) async throws -> Response {
        let all = try await templates.templates(app: console.session.app)
        let rows = all.map { template -> HTML in
            """
            <tr><td><a href="/console/templates/\(Self.pathSegment(template.name))">\(template.name)</a></td>
            <td>\(template.message ?? "")</td><td>\(Self.audienceText(template.audience))</td></tr>
            """
        }
        let table = ConsolePage.table(
            caption: "Push templates by name",
            headers: "<th scope=\"col\">Name</th><th scope=\"col\">Message</th><th scope=\"col\">Audience</th>",
            rows: rows, empty: "No templates yet. Create one below; apps download them with GET …/messaging/pushtemplates.")
        let body: HTML = """
            \(table)
            <h2>New template</h2>
            \(templateForm(console, values: [:], existing: nil))
            """
        return ConsolePage.page(title: "Templates", current: "/console/templates", console: console, body)
    }

    func templatePage(
        _ console: ConsoleRequest, _ context: HeraldRequestContext, saved: Bool = false, error: String? = nil,
        values: [String: String]? = nil
    ) async throws -> Response {
        let name = try AppScope.parameter("templateName", context)
        guard let template = try await templates.template(app: console.session.app, name: name) else {
            throw HeraldFault.unknownTemplate(name)
        }
        let notice: HTML = saved ? "<p class=\"notice\" role=\"status\">Saved.</p>" : ""
        let placeholders = Self.placeholders(template)
        let valueLines = placeholders.map { "\($0): " }.joined(separator: "\n")
        let body: HTML = """
            \(notice)
            \(templateForm(console, values: values ?? Self.formValues(template), existing: template, error: error))
            <h2>Send with this template</h2>
            <form method="post" action="/console/templates/\(Self.pathSegment(name))/send" class="stack">
            \(ConsolePage.csrf(console))
            <label for="f-values">Values</label>
            <textarea id="f-values" name="values" rows="\(max(2, placeholders.count))" spellcheck="false" aria-describedby="values-hint">\(valueLines)</textarea>
            <small id="values-hint">One per line as name: value, for the template's placeholders\(placeholders.isEmpty ? " (it has none)" : ": \(placeholders.map { "{\($0)}" }.joined(separator: ", "))"). A placeholder without a value is sent as written.</small>
            <button type="submit">Send to \(Self.audienceText(template.audience))</button>
            </form>
            <h2>Delete</h2>
            <form method="post" action="/console/templates/\(Self.pathSegment(name))/delete" data-confirm="Delete template \(name)? Apps that downloaded it keep their copy.">
            \(ConsolePage.csrf(console))<button type="submit" class="danger">Delete template</button></form>
            """
        return ConsolePage.page(
            title: "Template \(name)", current: "/console/templates", console: console, status: error == nil ? .ok : .badRequest, body)
    }

    /// The create or edit form, with `values` (the form's names) and the preview.
    func templateForm(_ console: ConsoleRequest, values: [String: String], existing: PushTemplate?, error: String? = nil) -> HTML {
        func value(_ name: String) -> String { values[name] ?? "" }
        func field(_ name: String, _ label: String, type: String = "text", hint: String = "", attributes: HTML = "") -> HTML {
            ConsolePage.field(name, label, value: value(name), type: type, hint: hint, attributes: attributes)
        }
        let previewSources: [String: HTML] = [
            "ios-alertTitle": "data-preview-source=\"ios-title\"", "ios-alertSubtitle": "data-preview-source=\"ios-subtitle\"",
            "ios-badge": "data-preview-source=\"badge\"", "android-contentTitle": "data-preview-source=\"android-title\"",
            "android-summarySubText": "data-preview-source=\"android-subtext\"", "web-title": "data-preview-source=\"web-title\"",
        ]
        func block(_ block: String) -> HTML {
            HTML.join(
                Self.templateFields.filter { $0.block == block }.map { item in
                    field(
                        item.name, item.label, type: Self.integerTemplateFields.contains(item.name) ? "number" : "text",
                        attributes: previewSources[item.name] ?? "")
                })
        }
        let kept = existing.map(Self.keptFields) ?? []
        let keptList: HTML =
            kept.isEmpty
            ? ""
            : "<p class=\"muted\">Also in this template, kept as they are (change them with PUT …/admin/pushtemplates/{name}): \(kept.joined(separator: ", ")).</p>"
        let action = existing.map { "/console/templates/\(Self.pathSegment($0.name))" } ?? "/console/templates"
        let alert: HTML = error.map { "<p class=\"error\" role=\"alert\" id=\"template-error\">\($0)</p>" } ?? ""
        let platforms = Set(value("platforms").split(separator: " ").map(String.init))
        return """
            \(alert)
            <form method="post" action="\(action)" class="composer">
            \(ConsolePage.csrf(console))
            <div class="compose-grid">
            <div>
            <fieldset><legend>Template</legend>
              \(existing == nil ? field("name", "Name", hint: "1 to 64 of A-Z a-z 0-9 - _ . and space.", attributes: "required maxlength=\"64\"") : "")
              <div class="field"><label for="f-message">Message</label>
              <textarea id="f-message" name="message" rows="3" maxlength="4096" data-preview-source="message" aria-describedby="message-hint">\(value("message"))</textarea>
              <small id="message-hint">Write {name} where a value given when sending goes.</small></div>
            </fieldset>
            <fieldset><legend>iOS</legend>\(block("ios"))</fieldset>
            <fieldset><legend>Android</legend>\(block("android"))</fieldset>
            <fieldset><legend>Web</legend>\(block("web"))</fieldset>
            <fieldset><legend>Audience</legend>
              \(field("channels", "Channels", hint: "Channel names separated by commas; empty: every device of the app.", attributes: "spellcheck=\"false\""))
              <fieldset class="inline-set"><legend>Platforms</legend>
                \(Self.platformChecks { platforms.contains($0.rawValue) })
                <small>None ticked: every platform.</small>
              </fieldset>
            </fieldset>
            \(keptList)
            </div>
            \(Self.preview(
                iosTitle: value("ios-alertTitle"), iosSubtitle: value("ios-alertSubtitle"), androidTitle: value("android-contentTitle"),
                androidSubtext: value("android-summarySubText"), message: value("message"), badge: value("ios-badge"),
                webTitle: Self.firstNonEmpty(value("web-title"), value("android-contentTitle"), value("ios-alertTitle"))))
            </div>
            <div class="actions"><button type="submit" class="primary">\(existing == nil ? "Create template" : "Save template")</button></div>
            </form>
            """
    }

    /// Creates (`POST /console/templates`) or saves (`POST /console/templates/{name}`) a template from the
    /// form, keeping the fields the form does not show; a refusal shows the form again with its message.
    func saveTemplate(_ console: ConsoleRequest, _ context: HeraldRequestContext) async throws -> Response {
        let app = console.session.app
        var form = console.form.all
        let editing = context.parameters.get("templateName") == nil ? nil : try AppScope.parameter("templateName", context)
        let existing = try await editing.asyncMap { name in
            guard let template = try await templates.template(app: app, name: name) else { throw HeraldFault.unknownTemplate(name) }
            return template
        }
        form["platforms"] = DeviceOS.served.filter { form[Self.platformField($0)] == "on" }.map(\.rawValue).joined(separator: " ")
        let name = editing ?? (form["name"] ?? "").trimmingCharacters(in: .whitespaces)
        do {
            let template = try PushTemplate(name: name, json: try Self.templateBody(form, existing: existing))
            // Creating never replaces a template of the same name.
            if editing == nil, try await templates.template(app: app, name: name) != nil {
                throw HeraldFault.invalidParameter("templateName", "a template named '\(name)' exists already: edit it on its own page")
            }
            _ = try await templates.put(template, app: app, limit: PushTemplateRoutes.limit, now: clock.now)
            return ConsolePage.redirect(to: "/console/templates/\(Self.pathSegment(name))?saved=1")
        } catch let fault as HeraldFault {
            if existing != nil { return try await templatePage(console, context, error: fault.message, values: form) }
            let body: HTML = """
                <h2>New template</h2>
                \(templateForm(console, values: form, existing: nil, error: fault.message))
                """
            return ConsolePage.page(title: "Templates", current: "/console/templates", console: console, status: .badRequest, body)
        }
    }

    func deleteTemplate(_ console: ConsoleRequest, _ context: HeraldRequestContext) async throws -> Response {
        let name = try AppScope.parameter("templateName", context)
        guard try await templates.delete(app: console.session.app, name: name) else { throw HeraldFault.unknownTemplate(name) }
        return ConsolePage.redirect(to: "/console/templates")
    }

    /// Sends a push with the template and the values in the form (`name: value` lines), then shows the message.
    func sendTemplate(_ console: ConsoleRequest, _ context: HeraldRequestContext) async throws -> Response {
        let name = try AppScope.parameter("templateName", context)
        guard let template = try await templates.template(app: console.session.app, name: name) else {
            throw HeraldFault.unknownTemplate(name)
        }
        var values: [String: JSONValue] = [:]
        for line in (console.form["values"] ?? "").split(whereSeparator: \.isNewline) {
            guard let colon = line.firstIndex(of: ":") else {
                if line.trimmingCharacters(in: .whitespaces).isEmpty { continue }
                throw HeraldFault.invalidParameter("templateValues", "write each value as name: value, got '\(line.prefix(64))'")
            }
            let key = line[..<colon].trimmingCharacters(in: .whitespaces)
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            // An empty value leaves the placeholder as written, as an absent one does.
            if !key.isEmpty && !value.isEmpty { values[key] = .string(value) }
        }
        let id = try await PushTemplateRoutes.send(
            template, body: .object(["templateValues": .object(values)]), app: console.session.app, messages: messages, clock: clock,
            dispatcher: dispatcher)
        return ConsolePage.redirect(to: "/console/messages/\(Self.pathSegment(id))")
    }

    // MARK: Between the form and the template

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

extension Optional {
    func asyncMap<T>(_ transform: (Wrapped) async throws -> T) async rethrows -> T? {
        guard let self else { return nil }
        return try await transform(self)
    }
}
