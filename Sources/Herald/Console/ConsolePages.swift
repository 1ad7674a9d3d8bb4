import Foundation
import HTTPTypes
import HeraldCore
import HeraldDispatch
import HeraldStore
import HeraldWebhooks
import Hummingbird
import NIOCore

/// The console's pages that exist so far: Overview, Channels (and a channel's devices), Devices (and a
/// device's page with its switch), Operations (sweep now, health).
extension ConsoleRoutes {
    /// Pages list at most this many rows; the next page follows the last row's key.
    static let pageSize = 50

    // MARK: Overview

    func overview(_ console: ConsoleRequest) async throws -> Response {
        let app = console.session.app
        let now = clock.now
        let (channels, channelsCounted) = try await channelCounts.value("\(app)\u{0}overview", now: now) {
            try await store.channels(app: app, after: nil, limit: 1001, now: now)
        }
        let shown = channels.prefix(1000)
        let registrations = shown.reduce(0) { $0 + $1.registrations }
        let problem = await readiness.problem()
        let more = channels.count > 1000 ? "+" : ""
        let day = try await messages.statusCounts(app: app, since: Timestamp(milliseconds: now.milliseconds - 86_400_000))
        let outcomes = Self.statuses.map { name -> HTML in
            let count = MessageStatus(rawValue: name).flatMap { day[$0] } ?? 0
            return
                "<li><a href=\"/console/messages?status=\(name)\">\(name)</a> <span class=\"count\" data-status=\"\(name)\">\(count.grouped)</span></li>"
        }
        let devices = try await deviceSummary(app)
        let body: HTML = """
            <section class="cards" aria-label="Summary">
              <div class="card"><span class="label">Devices</span><span class="value">\(devices.counts.values.reduce(0) { $0 + $1.devices }.grouped)</span></div>
              <div class="card"><span class="label">Channels</span><span class="value">\(Int64(shown.count).grouped)\(more)</span></div>
              <div class="card"><span class="label">Live registrations</span><span class="value">\(Int64(registrations).grouped)\(more)</span>
                <span class="muted">counted \(ConsolePage.time(channelsCounted))</span></div>
              <div class="card"><span class="label">Readiness</span><span class="value">\(problem == nil ? "ready" : "not ready")</span>
                \(problem.map { HTML("<span class=\"muted\">\($0)</span>") } ?? "")</div>
            </section>
            <h2>Devices by platform</h2>
            \(Self.deviceTable(devices.counts, counted: devices.counted))
            <h2>Messages in the last 24 hours</h2>
            <ul class="outcomes">\(outcomes)</ul>
            <h2>Running now</h2>
            <div id="running" data-refresh="/console/running" aria-live="polite">\(try await running(app))</div>
            <h2>Push services on this instance</h2>
            \(providerTable(app))
            <p>Find a device on <a href="/console/devices">Devices</a>, a channel's devices on
            <a href="/console/channels">Channels</a>; send a push on <a href="/console/send">Send</a>; run a sweep on
            <a href="/console/operations">Operations</a>.</p>
            """
        return ConsolePage.page(title: "Overview", current: "/console", console: console, body)
    }

    /// The app's devices by platform, counted at most once a minute per app on this instance.
    func deviceSummary(_ app: String) async throws -> (counts: [DeviceOS: DeviceCounts], counted: Timestamp) {
        let now = clock.now
        let (counts, counted) = try await deviceSummaries.value(app, now: now) { try await registry.summary(app: app, now: now) }
        return (counts, counted)
    }

    static func deviceTable(_ counts: [DeviceOS: DeviceCounts], counted: Timestamp) -> HTML {
        let rows = DeviceOS.allCases.compactMap { os -> HTML? in
            guard let count = counts[os] else { return nil }
            return """
                <tr><th scope="row">\(platformName(os))</th><td class="number">\(count.devices.grouped)</td><td class="number">\(count.active.grouped)</td>
                <td class="number">\(count.seenDay.grouped)</td><td class="number">\(count.seenWeek.grouped)</td><td class="number">\(count.seenMonth.grouped)</td></tr>
                """
        }
        return ConsolePage.table(
            caption: "Counted \(ConsolePage.time(counted)), again at most once a minute",
            headers: """
                <th scope="col">Platform</th><th scope="col" class="number">Devices</th><th scope="col" class="number">Active</th>
                <th scope="col" class="number">Seen in 24 h</th><th scope="col" class="number">7 days</th><th scope="col" class="number">30 days</th>
                """, rows: rows,
            empty: "No devices yet. A device appears when it registers (POST /{appId}/{apiKey}/messaging/registrations).")
    }

    /// The fan-outs running now (`/console/running`, which the Overview reloads every few seconds).
    func runningFragment(_ console: ConsoleRequest) async throws -> Response {
        var headers: HTTPFields = [.contentType: "text/html; charset=utf-8", .cacheControl: "no-store"]
        ConsoleCookie.secureHeaders(&headers)
        return Response(
            status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: try await running(console.session.app).text)))
    }

    func running(_ app: String) async throws -> HTML {
        let page = try await messages.messages(app: app, filter: MessageFilter(statuses: [.running]), after: nil, limit: 20)
        let rows = page.messages.map { message -> HTML in
            let counts = message.deliveries
            return """
                <tr><td><a href="/console/messages/\(Self.pathSegment(message.id))">\(message.channel.rawValue)</a></td>
                <td>\(ConsolePage.time(message.createdAt))</td><td class="number">\(counts.sent.grouped)</td>
                <td class="number">\(counts.failed.grouped)</td><td class="number">\(counts.pending.grouped)</td></tr>
                """
        }
        return ConsolePage.table(
            caption: "Fan-outs sending now (updated every few seconds)",
            headers: """
                <th scope="col">Message to</th><th scope="col">Accepted</th><th scope="col" class="number">Sent</th>
                <th scope="col" class="number">Failed</th><th scope="col" class="number">Pending</th>
                """, rows: rows, empty: "Nothing is being sent right now.")
    }

    /// Each configured push service's health on this instance: connections, answers since start, last error.
    func providerTable(_ app: String) -> HTML {
        guard let dispatcher else { return "<p class=\"empty\">This instance does not send (its dispatcher is off).</p>" }
        let rows = dispatcher.providerHealth(app: app).map { health -> HTML in
            let state: HTML =
                health.started
                ? "\(Int64(health.connections).grouped) open, \(Int64(health.inFlight).grouped) in flight"
                : "<span class=\"muted\">not connected yet (connects at the first send)</span>"
            let error: HTML =
                health.lastError.map { "\(ConsolePage.time(health.lastErrorAt)) \($0)" } ?? "<span class=\"muted\">none</span>"
            return """
                <tr><th scope="row">\(health.provider.displayName)</th><td>\(state)</td><td class="number">\(health.sent.grouped)</td>
                <td class="number">\(health.refused.grouped)</td><td class="number">\(health.retries.grouped)</td>
                <td>\(ConsolePage.time(health.lastSuccessAt))</td><td>\(error)</td></tr>
                """
        }
        return ConsolePage.table(
            caption: "Instance \(dispatcher.owner), since it started",
            headers: """
                <th scope="col">Service</th><th scope="col">Connections</th><th scope="col" class="number">Accepted</th>
                <th scope="col" class="number">Refused</th><th scope="col" class="number">Retried</th><th scope="col">Last success</th><th scope="col">Last error</th>
                """, rows: rows,
            empty: "No push service is configured for this app (apps[].apns and apps[].fcm in the configuration, docs/configuration.md).")
    }

    // MARK: Channels

    func channels(_ request: Request, _ console: ConsoleRequest) async throws -> Response {
        let query = try QueryParameters(request)
        let after = try query["after"].flatMap { $0.isEmpty ? nil : try ChannelName(validating: $0, property: "after") }
        let app = console.session.app
        let now = clock.now
        let page = "\(app)\u{0}\(after?.rawValue ?? "")"
        let (found, counted) = try await channelCounts.value(page, now: now) {
            try await store.channels(app: app, after: after, limit: Self.pageSize + 1, now: now)
        }
        let names = found.prefix(Self.pageSize).map(\.name)
        let platforms = try await channelPlatforms.value(page, now: now) {
            try await store.channelPlatforms(app: app, names: names, now: now)
        }.value
        let rows = found.prefix(Self.pageSize).map { channel -> HTML in
            let name = channel.name.rawValue
            let encoded = Self.pathSegment(name)
            let counts = platforms[channel.name] ?? [:]
            let byPlatform = HTML.join(
                DeviceOS.served.map { "<td class=\"number\">\(Int64(counts[$0] ?? 0).grouped)</td>" })
            return """
                <tr><td><a href="/console/devices?channel=\(Self.queryValue(name))">\(name)</a></td>
                <td class="number">\(Int64(channel.registrations).grouped)</td>\(byPlatform)
                <td class="actions-cell"><a href="/console/send?channel=\(Self.queryValue(name))">Send</a>
                <form method="post" action="/console/channels/\(encoded)/delete" data-confirm="Delete channel \(name) and its \(Int64(channel.registrations).grouped) registrations?">
                \(ConsolePage.csrf(console))<button type="submit" class="danger">Delete</button></form></td></tr>
                """
        }
        let table = ConsolePage.table(
            caption: "Channels by name, with their live registrations, counted \(ConsolePage.time(counted)) (again at most once a minute)",
            headers: """
                <th scope="col">Channel</th><th scope="col" class="number">Registrations</th>\(HTML.join(DeviceOS.served.map { "<th scope=\"col\" class=\"number\">\($0.displayName)</th>" }))
                <th scope="col">Actions</th>
                """,
            rows: Array(rows),
            empty: "No channels yet. A channel appears when a device registers into it (POST /{appId}/{apiKey}/messaging/registrations).")
        let next: HTML =
            found.count > Self.pageSize
            ? "<p class=\"pager\"><a href=\"/console/channels?after=\(Self.queryValue(found[Self.pageSize - 1].name.rawValue))\" rel=\"next\">Next channels</a></p>"
            : ""
        return ConsolePage.page(title: "Channels", current: "/console/channels", console: console, table + next)
    }

    func deleteChannel(_ console: ConsoleRequest, _ context: HeraldRequestContext) async throws -> Response {
        let name = try ChannelName(validating: try AppScope.parameter("name", context), property: "channelName")
        guard try await store.deleteChannel(app: console.session.app, name: name) else { throw HeraldFault.unknownChannel(name.rawValue) }
        // The listing is counted again, without the channel.
        channelCounts.forget(prefix: "\(console.session.app)\u{0}")
        channelPlatforms.forget(prefix: "\(console.session.app)\u{0}")
        return ConsolePage.redirect(to: "/console/channels")
    }

    // MARK: Devices

    func devices(_ request: Request, _ console: ConsoleRequest) async throws -> Response {
        let query = try QueryParameters(request)
        let filter = try DeviceFilter { name in query[name].flatMap { $0.isEmpty ? nil : $0 } }
        let cursor = try Page.cursor(query)
        let found = try await registry.devices(
            app: console.session.app, filter: filter, after: cursor, limit: Self.pageSize, scanLimit: DeviceRoutes.listingScanLimit,
            now: clock.now)
        let rows = found.devices.map { entry -> HTML in
            let record = entry.record
            return """
                <tr><td><a href="/console/devices/\(Self.pathSegment(record.deviceId))">\(record.deviceId)</a></td>
                <td>\(record.os?.rawValue ?? "")</td><td>\(record.metadata.appVersion ?? "")</td>
                <td>\(record.isActive ? "active" : "off")</td><td>\(ConsolePage.time(record.lastSeenAt))</td></tr>
                """
        }
        let option = { (value: String, label: String, name: String) in ConsolePage.option(value, label, current: query[name]) }
        let form: HTML = """
            <form method="get" action="/console/devices" class="filters" role="search">
              <label>Search <input name="q" value="\(query["q"])" placeholder="device id, install id or name"></label>
              <label>Channel <input name="channel" value="\(query["channel"])"></label>
              <label>OS <select name="os">\(option("", "any", "os"))\(HTML.join(DeviceOS.allCases.map { option($0.rawValue, $0.displayName, "os") }))</select></label>
              <label>State <select name="active">\(option("", "any", "active"))\(option("true", "active", "active"))\(option("false", "off", "active"))</select></label>
              <label>App version <input name="appVersion" value="\(query["appVersion"])"></label>
              <button type="submit">Filter</button>
            </form>
            """
        let table = ConsolePage.table(
            caption: "Devices in registration order",
            headers: """
                <th scope="col">Device id</th><th scope="col">OS</th><th scope="col">App version</th><th scope="col">State</th><th scope="col">Last seen</th>
                """, rows: rows,
            empty: "No devices match on this page. Devices appear when they register; change the filters or go on to the next page.")
        let next = ConsolePage.next(
            "/console/devices", query: query, keep: ["q", "channel", "os", "active", "appVersion"],
            cursor: found.nextCursor.map(String.init),
            label: "Next devices")
        return ConsolePage.page(title: "Devices", current: "/console/devices", console: console, form + table + next)
    }

    func device(_ console: ConsoleRequest, _ context: HeraldRequestContext) async throws -> Response {
        let deviceId = try AppScope.parameter("deviceId", context)
        let app = console.session.app
        guard let record = try await registry.record(app: app, deviceId: deviceId, now: clock.now) else { throw HeraldFault.unknownDevice }
        let launches = try await registry.launches(app: app, deviceId: deviceId, before: nil, limit: 20) ?? []
        let deliveries = try await registry.deliveries(app: app, deviceId: deviceId, before: nil, limit: 20) ?? []
        let metadata = record.metadata
        let facts: [(String, HTML)] = [
            ("OS", "\(record.os?.rawValue ?? "unknown") \(record.osVersion ?? "")"),
            ("Token", "<code>\(ConsolePage.tokenPreview(record.deviceToken))</code>"),
            ("Install id", "\(metadata.installId ?? "")"), ("Name", "\(metadata.deviceName ?? "")"),
            ("Model", "\(metadata.deviceModel ?? "")"),
            ("App version", "\(metadata.appVersion ?? "") \(metadata.appBuild.map { "(\($0))" } ?? "")"),
            ("Locale", "\(metadata.locale ?? "")"), ("Time zone", "\(metadata.timeZone ?? "")"),
            ("Launches", "\(record.launchCount.grouped)"), ("Registered", ConsolePage.time(record.createdAt)),
            ("Last seen", ConsolePage.time(record.lastSeenAt)),
            ("State", record.isActive ? "active" : "off\(record.inactiveReason.map { ": \($0)" } ?? "")"),
        ]
        // What the device has not reported is left out rather than shown empty.
        let list = HTML.join(
            facts.filter { !$0.1.text.trimmingCharacters(in: .whitespaces).isEmpty }.map { "<dt>\($0.0)</dt><dd>\($0.1)</dd>" })
        let channels = record.channels.map { channel -> HTML in
            "<li><a href=\"/console/devices?channel=\(Self.queryValue(channel.name.rawValue))\">\(channel.name.rawValue)</a>\(channel.expiration.map { HTML(" <span class=\"muted\">until \(ConsolePage.time($0))</span>") } ?? "")</li>"
        }
        let switchForm: HTML = """
            <form method="post" action="/console/devices/\(Self.pathSegment(deviceId))/switch" class="inline"
              \(record.isActive ? HTML("data-confirm=\"Switch this device off? It gets no pushes and its launches are refused.\"") : "")>
            \(ConsolePage.csrf(console))
            <input type="hidden" name="active" value="\(record.isActive ? "false" : "true")">
            \(record.isActive ? HTML("<label>Reason <input name=\"reason\" maxlength=\"200\"></label> <button type=\"submit\" class=\"danger\">Deactivate</button>") : "<button type=\"submit\">Activate</button>")
            </form>
            """
        let testPush: HTML = """
            <h2>Test push</h2>
            <form method="post" action="/console/devices/\(Self.pathSegment(deviceId))/push" class="inline">
            \(ConsolePage.csrf(console))
            <label>Title <input name="title" maxlength="200"></label>
            <label>Message <input name="message" required maxlength="1000" value="Test from the Herald console"></label>
            <button type="submit">Send to this device</button>
            </form>
            """
        let launchRows = launches.map {
            "<tr><td>\(ConsolePage.time($0.launchedAt))</td><td>\($0.appVersion ?? "")</td><td>\($0.appBuild ?? "")</td></tr>" as HTML
        }
        let deliveryRows = deliveries.map { entry -> HTML in
            "<tr><td>\(ConsolePage.time(entry.deliveredAt))</td><td><code>\(entry.messageId)</code></td><td>\(entry.outcome)</td><td>\(entry.reason ?? "")</td></tr>"
        }
        let body: HTML = """
            <dl class="facts">\(list)</dl>
            \(switchForm)
            \(testPush)
            <h2>Channels</h2>
            \(channels.isEmpty ? HTML("<p class=\"empty\">In no channel.</p>") : "<ul>\(channels)</ul>")
            <h2>Launches</h2>
            \(launchRows.isEmpty ? HTML("<p class=\"empty\">No launches recorded. The app records one with POST …/devices/{deviceId}/launches.</p>") : "<table><caption>The 20 newest launches</caption><thead><tr><th scope=\"col\">When</th><th scope=\"col\">App version</th><th scope=\"col\">Build</th></tr></thead><tbody>\(launchRows)</tbody></table>")
            <h2>Delivery history</h2>
            \(deliveryRows.isEmpty ? HTML("<p class=\"empty\">Nothing sent to this device yet.</p>") : "<table><caption>The 20 newest deliveries</caption><thead><tr><th scope=\"col\">When</th><th scope=\"col\">Message</th><th scope=\"col\">Outcome</th><th scope=\"col\">Reason</th></tr></thead><tbody>\(deliveryRows)</tbody></table>")
            """
        return ConsolePage.page(title: "Device \(deviceId)", current: "/console/devices", console: console, body)
    }

    func switchDevice(_ console: ConsoleRequest, _ context: HeraldRequestContext) async throws -> Response {
        let deviceId = try AppScope.parameter("deviceId", context)
        let active = console.form["active"] == "true"
        let reason = console.form["reason"].flatMap { $0.isEmpty ? nil : String($0.prefix(200)) }
        guard try await registry.setActive(app: console.session.app, deviceId: deviceId, active: active, reason: reason, now: clock.now)
        else { throw HeraldFault.unknownDevice }
        return ConsolePage.redirect(to: "/console/devices/\(Self.pathSegment(deviceId))")
    }

    /// Sends a push to this one device (a singlecast publish on the `default` channel, as any other
    /// publish), then shows the message's page.
    func testPush(_ console: ConsoleRequest, _ context: HeraldRequestContext) async throws -> Response {
        let deviceId = try AppScope.parameter("deviceId", context)
        let text = (console.form["message"] ?? "").trimmingCharacters(in: .whitespaces)
        guard !text.isEmpty else { throw HeraldFault.invalidParameter("message", "write the message to send") }
        var headers: [String: JSONValue] = [:]
        if let title = console.form["title"], !title.isEmpty {
            headers["ios-alert-title"] = .string(title)
            headers["android-content-title"] = .string(title)
        }
        let body: JSONValue = .object([
            "message": .string(text), "pushSinglecast": .array([.string(deviceId)]), "headers": .object(headers),
            "publisherId": .string("herald-console"),
        ])
        let id = try await MessageRoutes.publish(
            body, app: console.session.app, channel: .default, messages: messages, clock: clock, dispatcher: dispatcher)
        return ConsolePage.redirect(to: "/console/messages/\(Self.pathSegment(id))")
    }

    // MARK: Operations

    func operations(_ request: Request, _ console: ConsoleRequest) async throws -> Response {
        let problem = await readiness.problem()
        // After a sweep the page is shown again with its counts in the query (so reloading it sweeps nothing).
        let swept = (try QueryParameters(request)["swept"] ?? "").split(separator: "-").compactMap { Int64($0) }
        let result: HTML =
            swept.count == 5
            ? """
            <p class="notice" role="status">Swept: \(swept[0].grouped) expired registrations removed,
            \(swept[1].grouped) history entries and \(swept[2].grouped) finished messages pruned,
            \(swept[3].grouped) empty channels removed, in \(swept[4].grouped) ms.</p>
            """ : ""
        let body: HTML = """
            \(result)
            <h2>Sweep</h2>
            <p>Removes this app's expired registrations and prunes its old delivery history and finished messages now
            (the sweeper also runs on its own timer).</p>
            <form method="post" action="/console/operations/sweep">\(ConsolePage.csrf(console))<button type="submit">Sweep now</button></form>
            <h2>Health</h2>
            <dl class="facts"><dt>Liveness</dt><dd>serving</dd><dt>Readiness</dt><dd>\(problem ?? "ready")</dd>
            <dt>Version</dt><dd>Herald \(HeraldVersion.current)</dd>\(dispatcher.map { HTML("<dt>Instance</dt><dd>\($0.owner)</dd>") } ?? "")</dl>
            <h2>Webhook</h2>
            \(try await webhookState(console.session.app))
            <h2>Configuration in force</h2>
            \(effectiveConfiguration(app: console.session.app))
            """
        return ConsolePage.page(title: "Operations", current: "/console/operations", console: console, body)
    }

    /// The app's webhook: where it posts, and the events waiting for it.
    func webhookState(_ app: String) async throws -> HTML {
        guard let target = server.apps.first(where: { $0.id == app })?.webhook else {
            return "<p class=\"empty\">No webhook is configured for this app (apps[].webhook, docs/configuration.md).</p>"
        }
        let backlog = try await outbox?.backlog(app: app) ?? WebhookBacklog()
        let waiting: HTML =
            backlog.pending == 0
            ? "<dd>none: every event was acknowledged</dd>"
            : """
            <dd>\(Int64(backlog.pending).grouped), the oldest from \(ConsolePage.time(backlog.oldestCreatedAt)); next attempt
            \(ConsolePage.time(backlog.nextAttemptAt)); most attempts \(Int64(backlog.mostAttempts).grouped)</dd>
            """
        return """
            <dl class="facts"><dt>Posts to</dt><dd><code>\(Self.withoutSecrets(target.url))</code></dd><dt>Events waiting</dt>\(waiting)
            <dt>A failure</dt><dd>\(backlog.lastError.map { "\($0) (of the event retried most)" } ?? "none")</dd></dl>
            """
    }

    /// A URL as a page may show it: its scheme, host and port only (a user, password, path, query or
    /// fragment may carry a token, as Slack-style webhook paths do).
    static func withoutSecrets(_ url: String) -> String {
        guard let components = URLComponents(string: url), let scheme = components.scheme, let host = components.host else {
            return "(not shown)"
        }
        let rest = components.path.count > 1 || components.query != nil || components.fragment != nil ? "/… (path not shown)" : ""
        return "\(scheme)://\(host)\(components.port.map { ":\($0)" } ?? "")\(rest)"
    }

    /// Every setting in force, secrets masked; of the apps' settings only this app's (another app's keys
    /// and webhook are not this admin's to see, even masked).
    func effectiveConfiguration(app: String) -> HTML {
        let index = server.apps.firstIndex { $0.id == app }
        let rows = server.effective.compactMap { setting -> HTML? in
            if setting.key.hasPrefix("apps.") {
                guard let index, setting.key.hasPrefix("apps.\(index).") else { return nil }
            }
            let value: HTML =
                setting.source == .unset
                ? "<span class=\"muted\">not set</span>"
                : "<code>\(setting.value.contains("://") ? Self.withoutSecrets(setting.value) : setting.value)</code>"
            let source: HTML = setting.source == .default ? "<span class=\"muted\">default</span>" : setting.source == .given ? "given" : ""
            return "<tr><td><code>\(setting.key)</code></td><td>\(value)</td><td>\(source)</td></tr>"
        }
        return ConsolePage.table(
            caption: "Settings from the file, HERALD_* variables and flags over the defaults; secrets are never shown",
            headers: "<th scope=\"col\">Setting</th><th scope=\"col\">Value</th><th scope=\"col\">From</th>", rows: rows,
            empty: "No settings.")
    }

    func sweep(_ console: ConsoleRequest) async throws -> Response {
        let report = try await sweeper.sweep(trigger: "console", app: console.session.app)
        let counts = [
            report.removed, report.historyPruned, report.messagesPruned, report.channelsRemoved, Int(report.durationMilliseconds.rounded()),
        ]
        return ConsolePage.redirect(to: "/console/operations?swept=\(counts.map(String.init).joined(separator: "-"))")
    }

    // MARK: Helpers

    /// A value as one path segment (percent-encoded).
    static func pathSegment(_ value: String) -> String {
        value.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "/?#"))) ?? value
    }

    /// A value as a query parameter's value.
    static func queryValue(_ value: String) -> String {
        value.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-._~"))) ?? value
    }
}
