import Foundation
import HTTPTypes
import HeraldCore
import HeraldDispatch
import HeraldStore
import HeraldWebhooks
import Hummingbird
import NIOCore

/// The console's Overview: the fan-outs running now with their progress, the deliveries charted over the last
/// hour or 7 days (ConsoleDeliveryChart), the last day's outcomes, devices by platform and activity, channel
/// totals and each push service's health on this instance.
extension ConsoleRoutes {
    // MARK: Overview

    func overview(_ request: Request, _ console: ConsoleRequest) async throws -> Response {
        let app = console.session.app
        let range = try QueryParameters(request)["range"].flatMap(DeliveryRange.init(rawValue:)) ?? .hour
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
            <h2>Running now</h2>
            <div id="running" data-live="/console/running/progress" data-refresh="/console/running">\(try await running(app))</div>
            \(try await deliverySection(app: app, range: range))
            <h2>Messages in the last 24 hours</h2>
            <ul class="outcomes">\(outcomes)</ul>
            <h2>Devices by platform</h2>
            \(Self.deviceTable(devices.counts, counted: devices.counted))
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
                <tr><th scope="row">\(os.displayName)</th><td class="number">\(count.devices.grouped)</td><td class="number">\(count.active.grouped)</td>
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

    /// The fan-outs running now as a fragment (`/console/running`: what the Overview reloads every few seconds in
    /// a browser without Server-Sent Events; others follow `/console/running/progress`).
    func runningFragment(_ console: ConsoleRequest) async throws -> Response {
        var headers: HTTPFields = [.contentType: "text/html; charset=utf-8", .cacheControl: "no-store"]
        ConsoleCookie.secureHeaders(&headers)
        return Response(
            status: .ok, headers: headers,
            body: .init(byteBuffer: ByteBuffer(string: try await running(console.session.app, count: true).text)))
    }

    /// Each configured push service's health on this instance: connections, answers since start, last error.
    func providerTable(_ app: String) -> HTML {
        guard let dispatcher else { return "<p class=\"empty\">This instance does not send (its dispatcher is off).</p>" }
        let rows = dispatcher.providerHealth(app: app).map { health -> HTML in
            let state: HTML =
                health.started
                ? "\(Int64(health.connections.open).grouped) open, \(Int64(health.connections.inFlight).grouped) in flight"
                    + (health.connections.replaced > 0
                        ? ", \(Int64(health.connections.replaced).grouped) replaced for answering nothing" : "")
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
}
