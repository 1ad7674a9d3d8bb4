import HTTPTypes
import HeraldCore
import HeraldStore
import Hummingbird

/// The Send page's Live Activity composer (`/console/send?kind=live-activity`): an ActivityKit event
/// published through the Live Activity route's own code (`LiveActivityPublish.publish`), so what it
/// accepts and refuses is the API's; a refusal comes back on the form with Herald's code and message
/// beside the field it names.
extension ConsoleRoutes {
    /// The Send page's two composers, as links (the page's own `<h1>` stays "Send").
    static func sendKinds(current: String) -> HTML {
        let kinds = [("Notification", "/console/send"), ("Live Activity", "/console/send?kind=live-activity")]
        let links = kinds.map { kind -> HTML in
            kind.0 == current
                ? "<li><a href=\"\(kind.1)\" aria-current=\"page\">\(kind.0)</a></li>" : "<li><a href=\"\(kind.1)\">\(kind.0)</a></li>"
        }
        return "<nav class=\"kinds\" aria-label=\"What to send\"><ul>\(links)</ul></nav>"
    }

    func sendLiveActivity(_ console: ConsoleRequest) async throws -> Response {
        let composition = Composition(form: console.form)
        do {
            guard let liveActivityPublish else { throw HeraldFault.noSuchRoute }
            let (body, channel) = try composition.liveActivityBody(now: clock.now)
            let id = try await ConsoleSubmission.once(console, kind: "live-activity", messages: messages, clock: clock) {
                id, idempotency in
                try await liveActivityPublish.publish(body, app: console.session.app, channel: channel, id: id, idempotency: idempotency)
            }
            return ConsolePage.redirect(to: "/console/messages/\(Self.pathSegment(id))")
        } catch let fault as HeraldFault {
            return ConsolePage.page(
                title: "Send", current: "/console/send", console: console,
                status: FaultMiddleware<HeraldRequestContext>.status(of: fault.kind),
                liveActivityComposer(console, composition, error: fault))
        }
    }

    /// The composer with `composition`'s values and the last try's refusal, beside its field when it names one.
    func liveActivityComposer(_ console: ConsoleRequest, _ composition: Composition, error: HeraldFault? = nil) -> HTML {
        let value = composition.value
        let errorField = error.flatMap(Composition.liveActivityField)
        /// Herald's code and message under the field the refusal names.
        func problem(_ name: String) -> HTML {
            guard let error, errorField == name else { return "" }
            return "<p class=\"field-error\" id=\"\(name)-error\">\(Self.faultText(error))</p>"
        }
        func marked(_ name: String, _ attributes: HTML) -> HTML {
            errorField == name ? attributes + " aria-invalid=\"true\" aria-errormessage=\"\(name)-error\"" : attributes
        }
        func field(_ name: String, _ label: String, type: String = "text", hint: String = "", attributes: HTML = "") -> HTML {
            ConsolePage.field(
                name, label, value: value(name), type: type, hint: hint, attributes: marked(name, attributes), after: problem(name))
        }
        func textarea(_ name: String, _ label: String, hint: String, placeholder: String, rows: Int = 4) -> HTML {
            """
            <div class="field"><label for="f-\(name)">\(label)</label>
            <textarea id="f-\(name)" name="\(name)" rows="\(rows)" class="json" spellcheck="false" placeholder="\(placeholder)" \
            aria-describedby="\(name)-hint"\(marked(name, ""))>\(value(name))</textarea>
            <small id="\(name)-hint">\(hint)</small>\(problem(name))</div>
            """
        }
        func radio(_ name: String, _ option: String, _ label: String, default isDefault: Bool = false) -> HTML {
            let chosen = value(name).isEmpty ? isDefault : value(name) == option
            return
                "<label class=\"check\"><input type=\"radio\" name=\"\(name)\" value=\"\(option)\"\(chosen ? HTML(" checked") : "")> \(label)</label>"
        }
        let priority = value("priority").isEmpty ? "5" : value("priority")
        // A refusal that names no field of the form (the app's APNs settings, the payload's size) goes on top.
        let alert: HTML =
            error.map { fault -> HTML in
                if let errorField {
                    return
                        "<p class=\"error\" role=\"alert\" id=\"send-error\">Not sent: see <a href=\"#f-\(errorField)\">the field marked below</a>.</p>"
                }
                return "<p class=\"error\" role=\"alert\" id=\"send-error\">\(Self.faultText(fault))</p>"
            } ?? ""
        return """
            \(Self.sendKinds(current: "Live Activity"))
            <p>An ActivityKit event for the app's Live Activities (iOS), sent as <code>POST …/messaging/{channel}/live-activity</code>
            sends it. To a Herald channel bound to a broadcast channel (<a href="/console/live-activities">Live Activities</a>), an
            update or end is one broadcast request.</p>
            \(alert)
            <form method="post" action="/console/send/live-activity" class="composer live-composer">
              \(ConsoleSubmission.hiddenField())
            \(ConsolePage.csrf(console))
            <fieldset><legend>Event</legend>
              <div class="radios">\(radio("event", "start", "Start")) \(radio("event", "update", "Update", default: true)) \(radio("event", "end", "End"))</div>
              \(problem("event"))
              \(field("attributesType", "Attributes type", hint: "The Swift ActivityAttributes type, such as MatchAttributes.", attributes: "required maxlength=\"128\" spellcheck=\"false\""))
              \(field("activityId", "Activity id (update and end, optional)", hint: "Only this activity; empty: every activity of the type.", attributes: "maxlength=\"128\" spellcheck=\"false\""))
              \(textarea("contentState", "Content state (JSON)", hint: "The object the app decodes as its ContentState. Required.", placeholder: "{\"home\": 1, \"away\": 0}"))
              \(textarea("attributes", "Attributes (JSON, start only)", hint: "The static attributes of the started activity. Required on a start.", placeholder: "{\"home\": \"Lyon\", \"away\": \"Nantes\"}", rows: 3))
            </fieldset>
            <fieldset><legend>Alert</legend>
              <small>Required on a start; an update or end with one lights the screen.</small>
              \(field("alertTitle", "Title", attributes: "maxlength=\"200\""))
              \(field("alertBody", "Body", attributes: "maxlength=\"1000\""))
              \(field("alertSound", "Sound", hint: "A sound file name in the app, or default."))
            </fieldset>
            <fieldset><legend>Timing and priority</legend>
              \(field("staleDate", "Stale date", type: "datetime-local", hint: "When the activity is shown as out of date. In your browser's time zone (UTC when scripts are off).", attributes: "data-epoch=\"staleDateMs\""))
              <input type="hidden" name="staleDateMs" value="">
              \(field("dismissalDate", "Dismissal date (end only)", type: "datetime-local", hint: "When the ended activity leaves the Lock Screen (at most 4 hours after the end).", attributes: "data-epoch=\"dismissalDateMs\""))
              <input type="hidden" name="dismissalDateMs" value="">
              \(field("relevanceScore", "Relevance score", hint: "Which of the app's activities the Dynamic Island shows first.", attributes: "inputmode=\"decimal\""))
              <div class="field"><label for="f-priority">Priority</label>
              <select id="f-priority" name="priority" aria-describedby="priority-hint"\(marked("priority", ""))>
              \(ConsolePage.option("5", "5: power-friendly (Apple's suggestion)", current: priority))
              \(ConsolePage.option("10", "10: at once", current: priority))
              </select>
              <small id="priority-hint">Priority 10 counts against Apple's hourly budget for the app; when it is spent, the device
              throttles the app's updates.</small>\(problem("priority"))</div>
              \(ConsolePage.check("inputPushToken", "Ask for the started activity's update token (start, iOS 18)", checked: composition.checked("inputPushToken")))
            </fieldset>
            <fieldset><legend>Audience</legend>
              <div class="radios">\(radio("audience", "channels", "To a channel", default: true)) \(radio("audience", "devices", "To devices by id"))</div>
              \(field("channel", "Channel", hint: "One Herald channel: its iOS devices' tokens, or its broadcast channel when bound.", attributes: "spellcheck=\"false\""))
              <div class="field"><label for="f-devices">Device ids</label>
              <textarea id="f-devices" name="devices" rows="2" spellcheck="false" aria-describedby="devices-hint"\(marked("devices", ""))>\(value("devices"))</textarea>
              <small id="devices-hint">Device ids separated by spaces, commas or lines (at most 1,000): their tokens, never a broadcast.</small>\(problem("devices"))</div>
              <fieldset class="inline-set"><legend>Segment (only devices that match every condition given; never a broadcast)</legend>
                \(field("appVersionAtLeast", "App version at least", attributes: "placeholder=\"2.3\""))
                \(field("appVersionBelow", "App version below", attributes: "placeholder=\"3.0\""))
                \(field("locales", "Locales", hint: "Language tags, comma separated: de, fr-CA.", attributes: "spellcheck=\"false\""))
                \(field("deviceModels", "Device models", hint: "Model identifiers separated by spaces.", attributes: "spellcheck=\"false\""))
                \(field("seenWithinDays", "Seen in the last … days", type: "number", attributes: "min=\"1\" max=\"3660\""))
              </fieldset>
            </fieldset>
            <div class="actions"><button type="submit" class="primary">Send Live Activity event</button></div>
            </form>
            """
    }
}
