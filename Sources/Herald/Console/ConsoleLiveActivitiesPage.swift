import Foundation
import HTTPTypes
import HeraldCore
import HeraldStore
import Hummingbird

/// The console's Live Activities page (issue 51): the app's APNs broadcast channels, made, bound, unbound
/// and deleted through the admin routes' own code (`LiveActivityChannelRoutes`), so Apple's refusals and
/// Herald's are the API's, shown with their code on the page; and the app's latest Live Activity publishes.
extension ConsoleRoutes {
    /// How many of the latest Live Activity publishes the page lists.
    static let recentLiveActivities = 20

    /// What a form did, by the `done` value of the page it redirects to.
    static let liveActivityDone: [String: String] = [
        "created": "Channel created at Apple.", "bound": "Channel bound.", "unbound": "Channel unbound.",
        "deleted": "Channel deleted at Apple and here.",
    ]

    func liveActivitiesPage(_ request: Request, _ console: ConsoleRequest) async throws -> Response {
        let done = try QueryParameters(request)["done"].flatMap { Self.liveActivityDone[$0] }
        return try await liveActivitiesPage(console, notice: done)
    }

    /// The page, with what the last form did (`notice`) or why it was refused (`error`, answered with its status).
    func liveActivitiesPage(
        _ console: ConsoleRequest, notice: String? = nil, error: HeraldFault? = nil, form: [String: String] = [:]
    ) async throws -> Response {
        let app = console.session.app
        let found = try await broadcastChannels?.channels.channels(app: app) ?? []
        let recent = try await messages.messages(
            app: app, filter: MessageFilter(liveActivity: true), after: nil, limit: Self.recentLiveActivities)
        // What stops Create before anyone presses it (the app's configuration), with the route's own code.
        var problem: HTML? = "this server keeps no broadcast channels (it has no database)"
        if let broadcastChannels { problem = broadcastChannels.managementProblem(app: app).map(Self.faultText) }
        let alert: HTML = error.map { HTML("<p class=\"error\" role=\"alert\" id=\"la-error\">\(Self.faultText($0))</p>") } ?? ""
        let status: HTML = notice.map { HTML("<p class=\"notice\" role=\"status\" id=\"la-done\">\($0)</p>") } ?? ""
        let setup: HTML =
            problem.map { HTML("<p class=\"error\" id=\"la-setup\">Broadcast channels cannot be made for this app: \($0)</p>") } ?? ""
        let rows = found.enumerated().map { index, channel -> HTML in
            let id = channel.channelId
            let bound: HTML =
                channel.boundChannel.map {
                    HTML("<a href=\"/console/devices?channel=\(Self.queryValue($0.rawValue))\">\($0.rawValue)</a>")
                } ?? "<span class=\"muted\">none</span>"
            let unbind: HTML =
                channel.boundChannel == nil
                ? ""
                : """
                <form method="post" action="/console/live-activities/bind">\(ConsolePage.csrf(console))
                <input type="hidden" name="channelId" value="\(id)"><input type="hidden" name="intent" value="unbind">
                <button type="submit" class="secondary">Unbind</button></form>
                """
            let field = "bind-\(index)"
            return """
                <tr><td data-label="Channel id"><code title="\(id)">\(Self.shortChannelId(id))</code></td>
                <td data-label="Storage">\(Self.storagePolicyText(channel.storagePolicy))</td><td data-label="Bound to">\(bound)</td>
                <td data-label="Created">\(ConsolePage.time(channel.createdAt))</td>
                <td class="actions-cell"><div class="row-actions">
                <form method="post" action="/console/live-activities/bind" class="bind">\(ConsolePage.csrf(console))
                <input type="hidden" name="channelId" value="\(id)">
                <label for="\(field)">Herald channel</label>
                <input id="\(field)" name="channel" required maxlength="100" spellcheck="false" value="\(channel.boundChannel?.rawValue)">
                <button type="submit">Bind</button></form>
                \(unbind)
                <form method="post" action="/console/live-activities/delete" data-confirm="Delete broadcast channel \(Self.shortChannelId(id)) at Apple? Activities following it get no more updates.">
                \(ConsolePage.csrf(console))<input type="hidden" name="channelId" value="\(id)">
                <button type="submit" class="danger">Delete</button></form>
                </div></td></tr>
                """
        }
        let channelTable = ConsolePage.table(
            caption: "The app's APNs broadcast channels, oldest first (the whole id on hover)",
            headers: """
                <th scope="col">Channel id</th><th scope="col">Storage</th><th scope="col">Bound to</th>
                <th scope="col">Created</th><th scope="col">Actions</th>
                """,
            rows: rows,
            empty: "No broadcast channels yet. Make one below, bound to the Herald channel whose activities should follow it.",
            stacked: true)
        let policy = form["storagePolicy"] ?? "0"
        let createForm: HTML = """
            <h2>New broadcast channel</h2>
            <form method="post" action="/console/live-activities/create" class="compact">
            \(ConsolePage.csrf(console))
            <div class="field"><label for="f-storagePolicy">Storage policy</label>
            <select id="f-storagePolicy" name="storagePolicy">
            \(ConsolePage.option("0", "0: no message stored (frequent updates)", current: policy))
            \(ConsolePage.option("1", "1: the latest message kept 8 hours", current: policy))
            </select></div>
            \(ConsolePage.field(
                "channel", "Herald channel to bind (optional)", value: form["channel"] ?? "",
                hint: "Its Live Activity updates and ends then go out as one broadcast request; a start carries the channel's id.",
                attributes: "maxlength=\"100\" spellcheck=\"false\""))
            <div class="actions"><button type="submit" class="primary">Create channel</button></div>
            </form>
            """
        let publishRows = recent.messages.map { message -> HTML in
            guard let target = message.liveActivity else { return "" }
            let counts = message.deliveries
            let sentAs: HTML =
                target.broadcast != nil
                ? "broadcast"
                : target.activityId.map { HTML("per token, activity <code>\($0)</code>") } ?? "per token"
            return """
                <tr><td data-label="Accepted"><a href="/console/messages/\(Self.pathSegment(message.id))">\(ConsolePage.time(message.createdAt))</a></td>
                <td data-label="Event">\(target.kind.rawValue)</td><td data-label="Attributes type">\(target.attributesType)</td>
                <td data-label="Audience">\(Self.audienceText(message))</td><td data-label="Sent as">\(sentAs)</td>
                <td data-label="Status"><span class="state state-\(Self.state(message))">\(Self.state(message))</span></td>
                <td class="number" data-label="Sent">\(counts.sent.grouped)</td><td class="number" data-label="Failed">\(counts.failed.grouped)</td></tr>
                """
        }
        let publishTable = ConsolePage.table(
            caption: "The \(Self.recentLiveActivities) latest Live Activity publishes, newest first",
            headers: """
                <th scope="col">Accepted</th><th scope="col">Event</th><th scope="col">Attributes type</th>
                <th scope="col">Audience</th><th scope="col">Sent as</th><th scope="col">Status</th>
                <th scope="col" class="number">Sent</th><th scope="col" class="number">Failed</th>
                """,
            rows: publishRows,
            empty:
                "No Live Activity publishes yet. Compose one on the Send page, or POST /{appId}/{apiKey}/messaging/{channel}/live-activity.",
            stacked: true)
        let body: HTML = """
            <p>APNs broadcast channels (iOS 18): activities that follow a channel are updated by <strong>one</strong> request to
            APNs. Bind a channel to a Herald channel, and a Live Activity update or end published to that Herald channel goes to
            Apple's channel instead of to each device's token. <a href="/console/send?kind=live-activity">Compose a Live Activity event</a>.</p>
            \(alert)\(status)\(setup)
            <h2>Broadcast channels</h2>
            \(channelTable)
            \(createForm)
            <h2>Recent Live Activity publishes</h2>
            \(publishTable)
            """
        return ConsolePage.page(
            title: "Live Activities", current: "/console/live-activities", console: console,
            status: error.map { FaultMiddleware<HeraldRequestContext>.status(of: $0.kind) } ?? .ok, body)
    }

    /// `storagePolicy` and the optional `channel` as the create route's body.
    func createBroadcastChannel(_ console: ConsoleRequest) async throws -> Response {
        var body: [String: JSONValue] = [:]
        let policy = (console.form["storagePolicy"] ?? "").trimmingCharacters(in: .whitespaces)
        // A value that is not a number goes as text, so the route's own check says what is wrong with it.
        if !policy.isEmpty { body["storagePolicy"] = Int64(policy).map(JSONValue.integer) ?? .string(policy) }
        if let channel = console.form["channel"]?.trimmingCharacters(in: .whitespaces), !channel.isEmpty {
            body["channel"] = .string(channel)
        }
        return try await broadcastChannelForm(console, done: "created") { routes in
            _ = try await routes.create(.object(body), app: console.session.app)
        }
    }

    /// Binds `channelId` to `channel`, or unbinds it (`intent=unbind`), as the bind route's body.
    func bindBroadcastChannel(_ console: ConsoleRequest) async throws -> Response {
        let unbind = console.form["intent"] == "unbind"
        let channel = (console.form["channel"] ?? "").trimmingCharacters(in: .whitespaces)
        return try await broadcastChannelForm(console, done: unbind ? "unbound" : "bound") { routes in
            _ = try await routes.bind(
                .object(["channel": unbind ? .null : .string(channel)]), app: console.session.app, id: console.form["channelId"] ?? "")
        }
    }

    func deleteBroadcastChannel(_ console: ConsoleRequest) async throws -> Response {
        try await broadcastChannelForm(console, done: "deleted") { routes in
            try await routes.delete(app: console.session.app, id: console.form["channelId"] ?? "")
        }
    }

    /// Runs a channel form's route code: back to the page saying what was done, or the page with the
    /// route's refusal (Apple's reason included) and the form's values.
    func broadcastChannelForm(
        _ console: ConsoleRequest, done: String, _ action: (LiveActivityChannelRoutes) async throws -> Void
    ) async throws -> Response {
        do {
            guard let broadcastChannels else { throw HeraldFault.noSuchRoute }
            try await action(broadcastChannels)
            return ConsolePage.redirect(to: "/console/live-activities?done=\(done)")
        } catch let fault as HeraldFault {
            return try await liveActivitiesPage(console, error: fault, form: console.form.all)
        }
    }

    /// A message's Live Activity target in a few words (the message's page).
    static func liveActivityText(_ target: LiveActivityTarget) -> HTML {
        let sentAs: HTML =
            target.broadcast.map { HTML("one broadcast to <code title=\"\($0.channelId)\">\(Self.shortChannelId($0.channelId))</code>") }
            ?? target.activityId.map { HTML("to activity <code>\($0)</code>") } ?? "per token"
        return "\(target.kind.rawValue) of \(target.attributesType), \(sentAs)"
    }

    /// A fault as the console shows it: Herald's code, then its message.
    static func faultText(_ fault: HeraldFault) -> HTML {
        "<strong class=\"code\">\(fault.code)</strong> \(fault.message)"
    }

    /// An Apple channel id (base64, about 24 characters) cut to its first 8 and last 4 characters.
    static func shortChannelId(_ id: String) -> String {
        id.count <= 14 ? id : "\(id.prefix(8))…\(id.suffix(4))"
    }

    static func storagePolicyText(_ policy: Int) -> HTML {
        switch policy {
        case 0: "0 <span class=\"muted\">no message stored</span>"
        case 1: "1 <span class=\"muted\">latest kept 8 h</span>"
        default: "\(policy)"
        }
    }
}
