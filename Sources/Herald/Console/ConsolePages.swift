import Foundation
import HTTPTypes
import HeraldCore
import HeraldDispatch
import HeraldStore
import HeraldWebhooks
import Hummingbird
import NIOCore

/// The console's Channels (and a channel's devices) and Devices (and a device's page with its switch,
/// test push and Live Activities) pages, and the helpers every page shares. Overview, Operations,
/// Messages, Send and Templates have files of their own (the Live Activities section too).
extension ConsoleRoutes {
    /// Pages list at most this many rows; the next page follows the last row's key.
    static let pageSize = 50

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
        return ConsolePage.page(title: "Channels", current: "/console/channels", console: console, table + next + liveTable(app: app))
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
        let webPush: HTML = """
            <p class="muted"><a href="/console/webpush">Web Push</a>: subscribe this browser as a WEB device, to try pushes
            through a real push service.</p>
            """
        return ConsolePage.page(title: "Devices", current: "/console/devices", console: console, form + table + next + webPush)
    }

    func device(_ console: ConsoleRequest, _ context: HeraldRequestContext) async throws -> Response {
        let deviceId = try AppScope.parameter("deviceId", context)
        let app = console.session.app
        guard let record = try await registry.record(app: app, deviceId: deviceId, now: clock.now) else { throw HeraldFault.unknownDevice }
        let launches = try await registry.launches(app: app, deviceId: deviceId, before: nil, limit: 20) ?? []
        let deliveries = try await registry.deliveries(app: app, deviceId: deviceId, before: nil, limit: 20) ?? []
        let liveActivities = try await liveActivitiesSection(app: app, record: record)
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
            \(liveActivities)
            \(Self.deviceTimeline(deviceId, deliveries: deliveries, launches: launches))
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
