import Foundation
import HTTPTypes
import HeraldCore
import HeraldDispatch
import HeraldStore
import HeraldWebhooks
import Hummingbird
import NIOCore

/// The console's Operations page: sweep now, health, version, the webhook's backlog and the
/// configuration in force (secrets masked).
extension ConsoleRoutes {
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
}
