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
              \(ConsoleSubmission.hiddenField())
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
        let body = JSONValue.object(["templateValues": .object(values)])
        let id = try await ConsoleSubmission.once(console, kind: "template \(name)", messages: messages, clock: clock) {
            id, idempotency in
            try await PushTemplateRoutes.send(
                template, body: body, app: console.session.app, messages: messages, clock: clock, dispatcher: dispatcher, id: id,
                idempotency: idempotency)
        }
        return ConsolePage.redirect(to: "/console/messages/\(Self.pathSegment(id))")
    }
}
