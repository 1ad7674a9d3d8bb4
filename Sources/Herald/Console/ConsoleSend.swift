import Foundation
import HTTPTypes
import HeraldCore
import HeraldDispatch
import HeraldStore
import Hummingbird

/// The console's Send page: a composer for what a publish accepts, the number of recipients before
/// sending, a preview on iOS and Android, and on sending the message's page. The form becomes a publish
/// body (`Composition.body`) that goes through the publish route's own checks (`MessageRoutes.publish`),
/// so the console can send nothing the API would refuse, and its errors are the API's.
extension ConsoleRoutes {
    func sendPage(_ request: Request, _ console: ConsoleRequest) async throws -> Response {
        // A link may name the audience (`?channel=` from a channel, `?device=` from a device).
        let query = try QueryParameters(request)
        if query["kind"] == "live-activity" {
            var values: [String: String] = [:]
            if let channel = query["channel"] { values["channel"] = channel }
            return ConsolePage.page(
                title: "Send", current: "/console/send", console: console, liveActivityComposer(console, Composition(values: values)))
        }
        var values: [String: String] = [:]
        if let channel = query["channel"] { values["channels"] = channel }
        if let device = query["device"] {
            values["audience"] = "devices"
            values["devices"] = device
        }
        return ConsolePage.page(
            title: "Send", current: "/console/send", console: console, composer(console, Composition(values: values)))
    }

    /// Counts the recipients (`intent=count`) or sends (`intent=send`), then shows the form again with the
    /// count or the API's error, or the message's page.
    func send(_ console: ConsoleRequest) async throws -> Response {
        let composition = Composition(form: console.form)
        let now = clock.now
        do {
            let (body, channels) = try composition.body(now: now)
            if console.form["intent"] == "count" {
                let publish = try PublishRequest(json: body, now: now)
                let count = try await store.recipientCount(
                    app: console.session.app,
                    filter: RecipientFilter(
                        channel: channels[0], devices: publish.singlecast?.map(\.rawValue),
                        systems: countedSystems(publish.broadcast, app: console.session.app), segment: publish.segment,
                        audience: channels.count > 1 && publish.singlecast == nil ? channels : nil),
                    now: now)
                // A platform the message names whose push service has no settings for the app gets nothing: say so.
                let unsent = PushProvider.allCases.filter { provider in
                    dispatcher?.isConfigured(provider, for: console.session.app) == false
                        && provider.systems.contains(where: publish.broadcast.includes)
                }
                return ConsolePage.page(
                    title: "Send", current: "/console/send", console: console,
                    composer(console, composition, count: count, unsent: unsent))
            }
            let id = try await ConsoleSubmission.once(console, kind: "send", messages: messages, clock: clock) {
                id, idempotency in
                try await MessageRoutes.publish(
                    body, app: console.session.app, channel: channels[0], channels: channels, messages: messages, clock: clock,
                    dispatcher: dispatcher, id: id, idempotency: idempotency)
            }
            return ConsolePage.redirect(to: "/console/messages/\(Self.pathSegment(id))")
        } catch let fault as HeraldFault {
            return ConsolePage.page(
                title: "Send", current: "/console/send", console: console,
                status: FaultMiddleware<HeraldRequestContext>.status(of: fault.kind),
                composer(console, composition, error: fault.message))
        }
    }

    /// The systems a fan-out of this app would send to: those the broadcast includes that a push service
    /// serves and the app has settings for (as the dispatcher picks them).
    func countedSystems(_ broadcast: PushBroadcast, app: String) -> [DeviceOS] {
        PushProvider.allCases.filter { dispatcher?.isConfigured($0, for: app) ?? true }.flatMap(\.systems).filter(broadcast.includes)
    }

    /// The composer with `composition`'s values, and the recipients counted or the error of the last try.
    func composer(
        _ console: ConsoleRequest, _ composition: Composition, count: RecipientCount? = nil, unsent: [PushProvider] = [],
        error: String? = nil
    ) -> HTML {
        let value = composition.value
        func field(_ name: String, _ label: String, type: String = "text", hint: String = "", attributes: HTML = "") -> HTML {
            ConsolePage.field(name, label, value: value(name), type: type, hint: hint, attributes: attributes)
        }
        func check(_ name: String, _ label: String) -> HTML { ConsolePage.check(name, label, checked: composition.checked(name)) }
        func radio(_ name: String, _ option: String, _ label: String, default isDefault: Bool = false) -> HTML {
            let chosen = value(name).isEmpty ? isDefault : value(name) == option
            return
                "<label class=\"check\"><input type=\"radio\" name=\"\(name)\" value=\"\(option)\"\(chosen ? HTML(" checked") : "")> \(label)</label>"
        }
        func select(_ name: String, _ label: String, _ options: [(String, String)]) -> HTML {
            let items = HTML.join(options.map { ConsolePage.option($0.0, $0.1, current: value(name)) })
            return
                "<div class=\"field\"><label for=\"f-\(name)\">\(label)</label><select id=\"f-\(name)\" name=\"\(name)\">\(items)</select></div>"
        }
        let alert: HTML = error.map { "<p class=\"error\" role=\"alert\" id=\"send-error\">\($0)</p>" } ?? ""
        let counted: HTML =
            count.map { count in
                let systems = DeviceOS.allCases.compactMap { os -> String? in
                    count.bySystem[os].map { "\(os.displayName) \($0.grouped)" }
                }
                let detail = systems.isEmpty ? "" : " (\(systems.joined(separator: ", ")))"
                let skipped = unsent.map {
                    " Not counted: \($0.systems.map(\.displayName).joined(separator: " and ")) devices, since this app has no \($0.displayName) settings."
                }.joined()
                return count.exact
                    ? "<p class=\"notice\" role=\"status\" id=\"recipients\">Recipients now: <strong>\(count.total.grouped)</strong> devices\(detail), counted exactly.\(skipped)</p>"
                    : "<p class=\"notice\" role=\"status\" id=\"recipients\">Recipients now: about <strong>\(count.total.grouped)</strong> devices\(detail). This is an <strong>estimate</strong>: counting every one takes over a second, so the part counted was scaled up.\(skipped)</p>"
            } ?? ""
        return """
            \(Self.sendKinds(current: "Notification"))
            \(alert)
            <form method="post" action="/console/send" class="composer" data-composer>
              \(ConsoleSubmission.hiddenField())
            \(ConsolePage.csrf(console))
            <div class="compose-grid">
            <div>
            <fieldset><legend>Content</legend>
              <div class="field"><label for="f-message">Message</label>
              <textarea id="f-message" name="message" rows="3" required maxlength="4000" data-preview-source="message">\(value("message"))</textarea></div>
              \(field("title", "Title", attributes: "maxlength=\"200\" data-preview-source=\"ios-title android-title web-title\""))
              \(field("subtitle", "Subtitle (iOS)", attributes: "maxlength=\"200\" data-preview-source=\"ios-subtitle\""))
              \(field("badge", "Badge (iOS)", type: "number", attributes: "min=\"0\" max=\"99999\" data-preview-source=\"badge\""))
              \(field("sound", "Sound", hint: "A sound file name in the app, or default."))
            </fieldset>
            <fieldset><legend>Audience</legend>
              <div class="radios">\(radio("audience", "channels", "To channels", default: true)) \(radio("audience", "devices", "To devices by id (singlecast)"))</div>
              \(field("channels", "Channels", hint: "One or more channel names, separated by commas. With several, each device gets the message once.", attributes: "spellcheck=\"false\""))
              <div class="field"><label for="f-devices">Device ids</label>
              <textarea id="f-devices" name="devices" rows="2" spellcheck="false" aria-describedby="devices-hint">\(value("devices"))</textarea>
              <small id="devices-hint">For singlecast: device ids separated by spaces, commas or lines (at most 1,000).</small></div>
              <fieldset class="inline-set"><legend>Platforms</legend>
                \(Self.platformChecks { composition.checked(Self.platformField($0)) })
                <small>None ticked: every platform.</small>
              </fieldset>
              <fieldset class="inline-set"><legend>Segment (only devices that match every condition given)</legend>
                \(field("appVersionAtLeast", "App version at least", attributes: "placeholder=\"2.3\""))
                \(field("appVersionBelow", "App version below", attributes: "placeholder=\"3.0\""))
                \(field("locales", "Locales", hint: "Language tags, comma separated: de, fr-CA.", attributes: "spellcheck=\"false\""))
                \(field("deviceModels", "Device models", hint: "Model identifiers separated by spaces: iPhone15,2 iPad13,1.", attributes: "spellcheck=\"false\""))
                \(field("seenWithinDays", "Seen in the last … days", type: "number", hint: "Counted back from when you press Send, also for a later or repeating push.", attributes: "min=\"1\" max=\"3660\""))
              </fieldset>
            </fieldset>
            <fieldset><legend>When</legend>
              <div class="radios">\(radio("when", "now", "Now", default: true)) \(radio("when", "at", "At a time")) \(radio("when", "repeat", "Repeating"))</div>
              \(field("publishAt", "At (first time)", type: "datetime-local", hint: "In your browser's time zone (UTC when scripts are off).", attributes: "data-epoch=\"publishAtMs\""))
              <input type="hidden" name="publishAtMs" value="">
              \(field("repeatMinutes", "Repeat every … minutes", type: "number", attributes: "min=\"1\""))
              \(field("repeatUntil", "Repeat until", type: "datetime-local", hint: "Leave empty to repeat until cancelled.", attributes: "data-epoch=\"repeatUntilMs\""))
              <input type="hidden" name="repeatUntilMs" value="">
            </fieldset>
            <details\(composition.hasOptions ? HTML(" open") : "")><summary>iOS, Android, web and delivery options</summary>
            <fieldset><legend>iOS (APNs)</legend>
              \(field("ios-category", "Category"))
              \(field("ios-thread-id", "Thread id"))
              \(check("ios-content-available", "Background update (content-available)")) \(check("ios-mutable-content", "Mutable content"))
              \(select("apns-priority", "Priority", [("", "APNs default"), ("10", "10: now"), ("5", "5: power-friendly"), ("1", "1: lowest")]))
              \(field("apns-collapse-id", "Collapse id", attributes: "maxlength=\"64\""))
            </fieldset>
            <fieldset><legend>Android (FCM)</legend>
              \(field("android-channel-id", "Notification channel id"))
              \(field("android-icon", "Icon"))
              \(select("android-priority", "Priority", [("", "FCM default"), ("high", "high"), ("normal", "normal")]))
              \(field("android-ttl", "Time to live (seconds)", type: "number", attributes: "min=\"0\" max=\"2419200\""))
              \(field("android-collapse-key", "Collapse key"))
            </fieldset>
            <fieldset><legend>Web (Web Push)</legend>
              \(field("web-icon", "Icon URL", attributes: "spellcheck=\"false\""))
              \(field("web-url", "Page a click opens", attributes: "spellcheck=\"false\" placeholder=\"https://\" data-preview-source=\"web-url\""))
              \(select("web-urgency", "Urgency", [("", "service default (normal)"), ("high", "high"), ("normal", "normal"), ("low", "low"), ("very-low", "very low")]))
              \(field("web-ttl", "Time to live (seconds)", type: "number", attributes: "min=\"0\" max=\"2419200\""))
              \(field("web-topic", "Topic", hint: "Up to 32 of A-Z a-z 0-9 - _: replaces a waiting message with the same topic.", attributes: "maxlength=\"32\" spellcheck=\"false\""))
            </fieldset>
            <fieldset><legend>Delivery</legend>
              \(select("publishPolicy", "Publish policy", [("PUSH", "PUSH: devices only"), ("BOTH", "BOTH: devices and the channel's subscribers"), ("PUBSUB", "PUBSUB: subscribers only")]))
              <div class="field"><label for="f-headers">Custom headers</label>
              <textarea id="f-headers" name="headers" rows="3" spellcheck="false" aria-describedby="headers-hint">\(value("headers"))</textarea>
              <small id="headers-hint">One per line as name: value. They go to the devices as the publish's headers do (docs/api.md has the table).</small></div>
            </fieldset>
            </details>
            </div>
            \(Self.preview(
                iosTitle: value("title"), iosSubtitle: value("subtitle"), androidTitle: value("title"), message: value("message"),
                badge: value("badge"), webURL: value("web-url")))
            </div>
            \(counted)
            <div class="actions">
              <button type="submit" name="intent" value="count" formnovalidate>Count recipients</button>
              <button type="submit" name="intent" value="send" class="primary">Send</button>
            </div>
            </form>
            """
    }

    /// How a notification looks on an iOS lock screen, in Android's shade and from a browser, side by side;
    /// console.js updates it as the fields change (a field's `data-preview-source` names the `data-preview`
    /// parts it fills). The browser's title is the Android one unless given (Web Push falls back so).
    static func preview(
        iosTitle: String, iosSubtitle: String, androidTitle: String, androidSubtext: String = "", message: String, badge: String,
        webTitle: String? = nil, webURL: String = "", app: String = "Your app"
    ) -> HTML {
        """
        <section class="previews" aria-label="Preview">
          <h2>Preview</h2>
          <figure class="phone ios">
            <figcaption>iOS</figcaption>
            <div class="notification">
              <div class="note-head"><span class="icon" aria-hidden="true"></span><span class="note-app">\(app)</span><span class="note-time">now</span></div>
              <strong data-preview="ios-title">\(iosTitle)</strong>
              <span class="note-subtitle" data-preview="ios-subtitle">\(iosSubtitle)</span>
              <p data-preview="message">\(message)</p>
              <span class="note-badge" data-preview="badge">\(badge)</span>
            </div>
          </figure>
          <figure class="phone android">
            <figcaption>Android</figcaption>
            <div class="notification">
              <div class="note-head"><span class="icon" aria-hidden="true"></span><span class="note-app">\(app) · now</span>
              <span class="note-subtext" data-preview="android-subtext">\(androidSubtext)</span></div>
              <strong data-preview="android-title">\(androidTitle)</strong>
              <p data-preview="message">\(message)</p>
            </div>
          </figure>
          <figure class="phone web">
            <figcaption>Browser</figcaption>
            <div class="notification">
              <div class="note-head"><span class="icon" aria-hidden="true"></span><span class="note-app">\(app) · Web Push</span></div>
              <strong data-preview="web-title">\(webTitle ?? androidTitle)</strong>
              <p data-preview="message">\(message)</p>
              <span class="note-url" data-preview="web-url">\(webURL)</span>
            </div>
          </figure>
        </section>
        """
    }

    /// A checkbox per platform a push service serves (`for-ios`, …), ticked when `ticked` says so.
    static func platformChecks(_ ticked: (DeviceOS) -> Bool) -> HTML {
        HTML.join(DeviceOS.served.map { ConsolePage.check(platformField($0), $0.displayName, checked: ticked($0)) + " " })
    }

    static func platformField(_ os: DeviceOS) -> String { "for-\(os.rawValue.lowercased())" }
}
