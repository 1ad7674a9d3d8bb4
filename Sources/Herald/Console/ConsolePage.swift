import Foundation
import HTTPTypes
import HeraldCore
import HeraldStore
import Hummingbird
import NIOCore

/// The console's page frame and answers: every page is the same document around its own `<main>`, with
/// one `<h1>`, the navigation and a Log out button; every answer carries `ConsoleCookie.secureHeaders`.
enum ConsolePage {
    /// The navigation, in order: (label, path).
    static let navigation: [(label: String, path: String)] = [
        ("Overview", "/console"), ("Channels", "/console/channels"), ("Devices", "/console/devices"),
        ("Messages", "/console/messages"), ("Send", "/console/send"), ("Templates", "/console/templates"),
        ("Live Activities", "/console/live-activities"), ("Operations", "/console/operations"),
    ]

    /// A whole page for a signed-in session.
    static func page(
        title: String, current: String, console: ConsoleRequest, status: HTTPResponse.Status = .ok, flash: HTML? = nil, _ main: HTML
    ) -> Response {
        let links = navigation.map { item -> HTML in
            item.path == current
                ? "<li><a href=\"\(item.path)\" aria-current=\"page\">\(item.label)</a></li>"
                : "<li><a href=\"\(item.path)\">\(item.label)</a></li>"
        }
        let body: HTML = """
            <header class="bar">
              <a class="brand" href="/console">Herald</a>
              <span class="app" title="The app this session is signed in to">app <strong>\(console.session.app)</strong></span>
              <nav aria-label="Console"><ul>\(links)</ul></nav>
              <form method="post" action="/console/logout" class="logout">
                <input type="hidden" name="csrf" value="\(console.session.csrf)">
                <button type="submit">Log out</button>
              </form>
            </header>
            <main id="main">
            \(flash ?? "")
            <h1>\(title)</h1>
            \(main)
            </main>
            """
        return document(title: title, body: body, status: status)
    }

    /// The document around `body`.
    static func document(title: String, body: HTML, status: HTTPResponse.Status = .ok, headers extra: HTTPFields = [:]) -> Response {
        let html: HTML = """
            <!doctype html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(title) · Herald console</title>
            <link rel="icon" href="/console/assets/favicon.svg" type="image/svg+xml">
            <link rel="stylesheet" href="/console/assets/console.css">
            <script src="/console/assets/console.js" defer></script>
            </head>
            <body>
            \(body)
            </body>
            </html>

            """
        var headers = extra
        headers[.contentType] = "text/html; charset=utf-8"
        headers[.cacheControl] = "no-store"
        ConsoleCookie.secureHeaders(&headers)
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: html.text)))
    }

    /// 303 to `path` (after a form, or to the login page).
    static func redirect(to path: String, headers extra: HTTPFields = [:]) -> Response {
        var headers = extra
        headers[.location] = path
        headers[.cacheControl] = "no-store"
        ConsoleCookie.secureHeaders(&headers)
        return Response(status: .seeOther, headers: headers)
    }

    /// A refusal outside a page (no session, a cross-site form): the message and a link to log in.
    static func refusal(_ status: HTTPResponse.Status, _ message: String) -> Response {
        document(
            title: "Refused",
            body: """
                <main id="main" class="narrow">
                <h1>Refused</h1>
                <p class="error" role="alert">\(message)</p>
                <p><a href="/console/login">Log in</a></p>
                </main>
                """, status: status)
    }

    /// A posted form (`application/x-www-form-urlencoded`, at most 64 KiB).
    static func form(_ request: Request) async throws -> QueryParameters {
        let body = try await request.body.collect(upTo: 64 * 1024)
        return try QueryParameters(encoded: String(buffer: body))
    }

    /// The message of an error a page shows: a Herald fault's own, or a generic one (logged by the caller).
    static func message(_ error: any Error) -> String {
        switch error {
        case let fault as HeraldFault: fault.message
        case is StoreUnavailable, is WriteQueueFull: HeraldFault.storeUnavailable.message
        default: "Something went wrong on the server; the log says what."
        }
    }

    /// A time as the browser shows it: local time (console.js), the UTC value on hover and without scripts.
    static func time(_ timestamp: Timestamp?) -> HTML {
        guard let timestamp else { return "<span class=\"muted\">never</span>" }
        let date = Date(timeIntervalSince1970: Double(timestamp.milliseconds) / 1000)
        let utc = date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: false))
        return
            "<time datetime=\"\(utc)\" title=\"\(utc)\">\(utc.replacingOccurrences(of: "T", with: " ").replacingOccurrences(of: "Z", with: " UTC"))</time>"
    }

    /// An `<option>`, selected when `value` is the current one.
    static func option(_ value: String, _ label: String, current: String?) -> HTML {
        value == (current ?? "") ? "<option value=\"\(value)\" selected>\(label)</option>" : "<option value=\"\(value)\">\(label)</option>"
    }

    /// A listing's table, or what to do when it has no rows. `stacked`: on a phone each row is a block of
    /// its cells, each cell labelled by its `data-label` (console.css), instead of a table to scroll sideways.
    static func table(caption: HTML, headers: HTML, rows: [HTML], empty: String, stacked: Bool = false) -> HTML {
        rows.isEmpty
            ? "<p class=\"empty\">\(empty)</p>"
            : """
            <table\(stacked ? HTML(" class=\"stacked\"") : "")>
            <caption>\(caption)</caption>
            <thead><tr>\(headers)</tr></thead>
            <tbody>\(rows)</tbody>
            </table>
            """
    }

    /// The link to a listing's next page: `path` with the filters in `keep` as the query has them, and the cursor.
    static func next(_ path: String, query: QueryParameters, keep: [String], cursor: String?, label: String) -> HTML {
        guard let cursor else { return "" }
        var parameters = keep.compactMap { name in query[name].flatMap { $0.isEmpty ? nil : "\(name)=\(ConsoleRoutes.queryValue($0))" } }
        parameters.append("cursor=\(ConsoleRoutes.queryValue(cursor))")
        return "<p class=\"pager\"><a href=\"\(path)?\(parameters.joined(separator: "&"))\" rel=\"next\">\(label)</a></p>"
    }

    /// A labelled input (`id` f-`name`), with its hint as its description.
    /// `after` goes under the hint (an error about the field).
    static func field(
        _ name: String, _ label: String, value: String, type: String = "text", hint: String = "", attributes: HTML = "", after: HTML = ""
    ) -> HTML {
        let described: HTML = hint.isEmpty ? "" : " aria-describedby=\"\(name)-hint\""
        let hintText: HTML = hint.isEmpty ? "" : "<small id=\"\(name)-hint\">\(hint)</small>"
        return """
            <div class="field"><label for="f-\(name)">\(label)</label>
            <input id="f-\(name)" name="\(name)" type="\(type)" value="\(value)"\(described) \(attributes)>\(hintText)\(after)</div>
            """
    }

    /// A labelled checkbox that posts `on` when ticked.
    static func check(_ name: String, _ label: String, checked: Bool) -> HTML {
        "<label class=\"check\"><input type=\"checkbox\" name=\"\(name)\" value=\"on\"\(checked ? HTML(" checked") : "")> \(label)</label>"
    }

    /// The hidden CSRF field every form carries.
    static func csrf(_ console: ConsoleRequest) -> HTML {
        "<input type=\"hidden\" name=\"csrf\" value=\"\(console.session.csrf)\">"
    }

    /// A device token cut short: pages never show a whole token.
    static func tokenPreview(_ token: String) -> String {
        token.count <= 12 ? String(repeating: "•", count: token.count) : "\(token.prefix(6))…\(token.suffix(4))"
    }
}
