import Foundation
import HTTPTypes
import HeraldCore
import HeraldStore
import Hummingbird
import NIOCore

/// The console's Messages pages: the history (newest first, by status and channel), a message's page
/// with its fan-out progress followed live (Server-Sent Events until it ends), and cancelling one that
/// is scheduled or repeating.
extension ConsoleRoutes {
    static let statuses = ["scheduled", "running", "published", "failed", "cancelled"]

    /// The state a page shows: Herald's own (running apart from scheduled).
    static func state(_ message: StoredMessage) -> String { message.status.rawValue }

    func messagesPage(_ request: Request, _ console: ConsoleRequest) async throws -> Response {
        let query = try QueryParameters(request)
        let filter = try MessageRoutes.filter(query)
        let cursor = try MessageRoutes.cursor(query)
        let page = try await messages.messages(app: console.session.app, filter: filter, after: cursor, limit: Self.pageSize)
        // The commonest reason of each message with failures (one query for the page, only for those).
        let topReasons = try await messages.commonestFailures(
            app: console.session.app, ids: page.messages.filter { $0.deliveries.failed > 0 }.map(\.id))
        let rows = page.messages.map { message -> HTML in
            let counts = message.deliveries
            let reason: HTML =
                topReasons[message.id].map { top in
                    "<span class=\"muted\">\(top.count.grouped) × \(Self.reasonText(top))</span>"
                } ?? ""
            return """
                <tr><td><a href="/console/messages/\(Self.pathSegment(message.id))">\(ConsolePage.time(message.createdAt))</a></td>
                <td>\(Self.audienceText(message))\(message.templateName.map { HTML(" <span class=\"muted\">template \($0)</span>") } ?? "")</td>
                <td><span class="state state-\(Self.state(message))">\(Self.state(message))</span></td>
                <td class="number">\(counts.sent.grouped)</td><td class="number">\(counts.failed.grouped)</td>
                <td class="number">\(counts.pending.grouped)</td>
                \(HTML.join(PushProvider.allCases.map { "<td class=\"number\">\(counts[$0].sent.grouped)</td>" }))
                <td>\(message.errorMessage ?? "") \(reason)</td></tr>
                """
        }
        let statusOptions = HTML.join(
            [ConsolePage.option("", "any", current: query["status"])]
                + Self.statuses.map { ConsolePage.option($0, $0, current: query["status"]) })
        let form: HTML = """
            <form method="get" action="/console/messages" class="filters" role="search">
              <label>Status <select name="status">\(statusOptions)</select></label>
              <label>Channel <input name="channel" value="\(query["channel"])"></label>
              <button type="submit">Filter</button>
            </form>
            """
        let table = ConsolePage.table(
            caption: "Messages, newest first",
            headers: """
                <th scope="col">Accepted</th><th scope="col">Audience</th><th scope="col">Status</th>
                <th scope="col" class="number">Sent</th><th scope="col" class="number">Failed</th><th scope="col" class="number">Pending</th>
                \(HTML.join(PushProvider.allCases.map { "<th scope=\"col\" class=\"number\">Sent by \($0.displayName)</th>" }))
                <th scope="col">Error or commonest failure</th>
                """, rows: rows,
            empty: "No messages match. A message appears here when a backend publishes (POST /{appId}/{apiKey}/messaging/{channel}).")
        let next = ConsolePage.next(
            "/console/messages", query: query, keep: ["status", "channel"], cursor: page.nextCursor?.description, label: "Older messages")
        return ConsolePage.page(title: "Messages", current: "/console/messages", console: console, form + table + next)
    }

    /// Who a message goes to, in a few words.
    static func audienceText(_ message: StoredMessage) -> String {
        if let devices = message.singlecast { return devices.count == 1 ? "device \(devices[0])" : "\(devices.count) devices" }
        if let audience = message.audience {
            return audience.isEmpty ? "every device" : "channels \(audience.map(\.rawValue).joined(separator: ", "))"
        }
        return "channel \(message.channel.rawValue)"
    }

    static func reasonText(_ failure: FailureReason) -> String {
        let what: String =
            switch failure.outcome {
            case .tokenRemoved: "token removed"
            case .tokenDeactivated: "device deactivated"
            case .failed, .sent: "failed"
            }
        return failure.reason.map { "\(what): \($0)" } ?? what
    }

    /// The fields a message's page shows and its live progress updates (`data-field` names).
    static func progress(_ message: StoredMessage) -> [String: String] {
        let counts = message.deliveries
        var fields = [
            "state": state(message), "targeted": counts.targeted.grouped, "sent": counts.sent.grouped, "failed": counts.failed.grouped,
            "pending": counts.pending.grouped, "tokens-removed": counts.tokensRemoved.grouped,
            "tokens-deactivated": counts.tokensDeactivated.grouped, "occurrences": message.occurrences.grouped,
            "error": message.errorMessage ?? "",
        ]
        // Per push service, by its configuration key: `apns-sent`, `fcm-failed`, ….
        for provider in PushProvider.allCases {
            fields["\(provider.rawValue)-sent"] = counts[provider].sent.grouped
            fields["\(provider.rawValue)-failed"] = counts[provider].failed.grouped
        }
        return fields
    }

    static func finished(_ message: StoredMessage) -> Bool { [.published, .failed, .cancelled].contains(message.status) }

    func messagePage(_ console: ConsoleRequest, _ context: HeraldRequestContext) async throws -> Response {
        let id = try AppScope.parameter("messageId", context)
        guard let message = try await messages.message(app: console.session.app, id: id) else {
            throw HeraldFault(code: 404, kind: .notFound, message: "No such message in this app (it may have been pruned).")
        }
        let fields = Self.progress(message)
        func field(_ name: String) -> HTML { "<span data-field=\"\(name)\">\(fields[name] ?? "")</span>" }
        let audience = Self.audienceText(message)
        let failures = try await messages.failureReasons(app: console.session.app, id: id, limit: 20)
        let failureRows = failures.map { failure -> HTML in
            "<tr><td>\(Self.reasonText(failure))</td><td class=\"number\">\(failure.count.grouped)</td></tr>"
        }
        let failureTable: HTML =
            failureRows.isEmpty
            ? ""
            : """
            <h2>Why sends failed</h2>
            \(ConsolePage.table(
                caption: "From the delivery history, commonest first (reloading the page counts again)",
                headers: "<th scope=\"col\">Outcome and the service's reason</th><th scope=\"col\" class=\"number\">Sends</th>",
                rows: failureRows, empty: ""))
            """
        let schedule: HTML = {
            var parts: [HTML] = []
            if let publishAt = message.schedule.publishAt { parts.append("at \(ConsolePage.time(publishAt))") }
            if let every = message.schedule.repeatEverySeconds { parts.append("every \(Int64(every).grouped) s") }
            if let until = message.schedule.repeatExpiresAt { parts.append("until \(ConsolePage.time(until))") }
            if message.status == .scheduled, let due = message.dueAt { parts.append("next \(ConsolePage.time(due))") }
            return parts.isEmpty ? "now" : HTML.join(parts.map { $0 + " " })
        }()
        let cancel: HTML =
            [.scheduled, .running].contains(message.status)
            ? """
            <form method="post" action="/console/messages/\(Self.pathSegment(id))/cancel" class="inline" data-confirm="Cancel this message? Devices not sent to yet get nothing.">
            \(ConsolePage.csrf(console))<button type="submit" class="danger">Cancel message</button></form>
            """ : ""
        let live: HTML =
            Self.finished(message) ? "" : " data-progress=\"/console/messages/\(Self.pathSegment(id))/progress\""
        let progress: HTML =
            Self.pushes(message)
            ? "<dt>Progress</dt><dd>\(Self.progressBlock(try await pace(message, rate: try await recentRate(message), count: true), label: "Progress: sent and failed of the devices targeted"))</dd>"
            : ""
        let sparkline = Self.finished(message) && Self.pushes(message) ? try await sendsPerSecondFigure(message) : ""
        let body: HTML = """
            <dl class="facts"\(live)>
              <dt>Status</dt><dd>\(field("state"))</dd>
              \(progress)
              <dt>Audience</dt><dd>\(audience)\(message.templateName.map { HTML(" (template \($0))") } ?? "")</dd>
              \(message.liveActivity.map { "<dt>Live Activity</dt><dd>\(Self.liveActivityText($0))</dd>" as HTML } ?? "")
              <dt>When</dt><dd>\(schedule)</dd>
              <dt>Accepted</dt><dd>\(ConsolePage.time(message.createdAt))</dd>
              <dt>Occurrences</dt><dd>\(field("occurrences"))</dd>
              <dt>Error</dt><dd>\(field("error"))</dd>
            </dl>
            <h2>Deliveries</h2>
            <table>
            <caption>Devices taken on so far, by platform (pending ones are counted in the total only)</caption>
            <thead><tr><th scope="col"></th><th scope="col" class="number">Taken on</th><th scope="col" class="number">Sent</th>
            <th scope="col" class="number">Failed</th><th scope="col" class="number">Pending</th></tr></thead>
            <tbody>
            <tr><th scope="row">All</th><td class="number">\(field("targeted"))</td><td class="number">\(field("sent"))</td>
            <td class="number">\(field("failed"))</td><td class="number">\(field("pending"))</td></tr>
            \(HTML.join(PushProvider.allCases.map { provider in
                """
                <tr><th scope="row">\(provider.displayName): \(provider.systems.map(\.displayName).joined(separator: ", "))</th><td></td>
                <td class="number">\(field("\(provider.rawValue)-sent"))</td><td class="number">\(field("\(provider.rawValue)-failed"))</td><td></td></tr>
                """
            }))
            </tbody>
            </table>
            <p>Tokens removed (no longer valid): \(field("tokens-removed")); devices deactivated: \(field("tokens-deactivated")).</p>
            \(sparkline)
            \(failureTable)
            \(cancel)
            <p><code>\(id)</code></p>
            """
        return ConsolePage.page(title: "Message to \(message.channel.rawValue)", current: "/console/messages", console: console, body)
    }

    /// The message's progress as Server-Sent Events: its fields every half second while they change (the
    /// bar's value and maximum, its line with the rate measured over the last seconds and the time left),
    /// until it ends (then one last event with `done`; `pump` says what else ends a stream).
    func messageProgress(_ console: ConsoleRequest, _ context: HeraldRequestContext) async throws -> Response {
        let id = try AppScope.parameter("messageId", context)
        let app = console.session.app
        guard try await messages.message(app: app, id: id) != nil else { throw HeraldFault.noSuchRoute }
        return Self.eventStream { writer in
            var last: [String: String] = [:]
            var window: RateWindow?
            let started = ContinuousClock.now
            try await pump(&writer, console) {
                guard let message = try await messages.message(app: app, id: id) else {
                    return StreamStep(events: [], done: true, interval: .zero)
                }
                var fields = Self.progress(message)
                if message.status == .running && window == nil { window = RateWindow(seed: try await recentRate(message)) }
                let since = (ContinuousClock.now - started).components
                window?.add(
                    at: Double(since.seconds) + Double(since.attoseconds) / 1e18, done: message.deliveries.sent + message.deliveries.failed)
                if Self.pushes(message) {
                    fields.merge(Self.paceFields(try await pace(message, rate: window?.rate, count: true))) { $1 }
                }
                let done = Self.finished(message)
                guard fields != last || done else { return StreamStep(events: [], done: false, interval: .milliseconds(500)) }
                last = fields
                fields["done"] = done ? "true" : "false"
                return StreamStep(events: [SortedJSON.text(fields)], done: done, interval: .milliseconds(500))
            }
        }
    }

    func cancelMessage(_ console: ConsoleRequest, _ context: HeraldRequestContext) async throws -> Response {
        let id = try AppScope.parameter("messageId", context)
        guard try await messages.cancel(app: console.session.app, id: id, now: clock.now) else { throw HeraldFault.messageNotCancellable }
        return ConsolePage.redirect(to: "/console/messages/\(Self.pathSegment(id))")
    }
}
