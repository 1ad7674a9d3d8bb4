import Foundation
import HTTPTypes
import Herald
import HeraldCore
import HeraldStore
import HeraldTestSupport
import Hummingbird
import HummingbirdTesting
import Logging
import Testing

/// The console's sessions and their defences (issue 25), over HTTP as a browser sends it: login with an
/// admin key into a database session, the cookie's flags, the security headers, CSRF and cross-site
/// refusals, logging out, timeouts, the login throttle, one app's admin kept to its app, and a session
/// made through one instance used through another on PostgreSQL. (The pages' looks and flows are the
/// browser tests' part: Tests/browser.)
@Suite struct ConsoleTests {
    typealias Answer = (status: HTTPResponse.Status, headers: HTTPFields, body: String)

    static func send(
        _ client: some TestClientProtocol, _ method: HTTPRequest.Method, _ uri: String, cookie: String? = nil, form: String? = nil,
        headers extra: HTTPFields = [:]
    ) async throws -> Answer {
        var headers = extra
        if let cookie { headers[.cookie] = "herald_console=\(cookie)" }
        if form != nil { headers[.contentType] = "application/x-www-form-urlencoded" }
        return try await client.execute(uri: uri, method: method, headers: headers, body: form.map { ByteBuffer(string: $0) }) {
            ($0.status, $0.headers, String(buffer: $0.body))
        }
    }

    /// Logs in as `app` with `key`; returns the session token from the cookie.
    static func login(_ client: some TestClientProtocol, app: String = "shop", key: String = "k-admin") async throws -> String {
        let answer = try await send(client, .post, "/console/login", form: "app=\(app)&key=\(key)")
        #expect(answer.status == .seeOther, "\(answer.body)")
        let cookie = try #require(answer.headers[.setCookie])
        let token = try #require(cookie.split(separator: ";").first?.split(separator: "=").last)
        return String(token)
    }

    /// The CSRF token of the session's pages.
    static func csrf(_ client: some TestClientProtocol, _ cookie: String) async throws -> String {
        let page = try await send(client, .get, "/console/operations", cookie: cookie)
        let range = try #require(page.body.range(of: #"name="csrf" value=""#))
        return String(page.body[range.upperBound...].prefix { $0 != "\"" })
    }

    @Test func aLoginWithTheAdminKeyOpensASessionInAnHttpOnlyStrictCookie() async throws {
        try await TestHerald.with(file: false) { h in
            let page = try await Self.send(h.client, .get, "/console/login")
            #expect(page.status == .ok)
            #expect(page.body.contains(#"name="app""#) && page.body.contains(#"name="key""#))
            #expect(page.headers[HTTPField.Name("Content-Security-Policy")!]?.contains("script-src 'self'") == true)
            #expect(!page.body.contains("<script>"), "no inline script")

            let answer = try await Self.send(h.client, .post, "/console/login", form: "app=shop&key=k-admin")
            #expect(answer.status == .seeOther && answer.headers[.location] == "/console")
            let cookie = try #require(answer.headers[.setCookie])
            #expect(cookie.hasPrefix("herald_console="))
            for flag in ["HttpOnly", "SameSite=Strict", "Path=/console"] { #expect(cookie.contains(flag), "\(cookie)") }
            #expect(!cookie.contains("Secure"), "plain HTTP: not Secure unless configured or behind TLS")
            #expect(!cookie.contains("k-admin") && !answer.body.contains("k-admin"), "the key is never echoed")

            // Behind a TLS proxy the cookie is Secure.
            let proxied = try await Self.send(
                h.client, .post, "/console/login", form: "app=shop&key=k-admin", headers: [HTTPField.Name("X-Forwarded-Proto")!: "https"])
            #expect(proxied.headers[.setCookie]?.contains("; Secure") == true)

            let token = try await Self.login(h.client)
            let overview = try await Self.send(h.client, .get, "/console", cookie: token)
            #expect(overview.status == .ok)
            #expect(overview.body.components(separatedBy: "<h1>").count == 2, "one h1")
            #expect(overview.body.contains("Log out"))
            #expect(!overview.body.contains("k-admin"))
        }
    }

    @Test func wrongKeysAClientKeyAndUnknownAppsAreRefusedAlike() async throws {
        try await TestHerald.with(file: false) { h in
            for form in ["app=shop&key=nope", "app=shop&key=k-client", "app=shop&key=k-server", "app=nowhere&key=k-admin", "app=&key="] {
                let answer = try await Self.send(h.client, .post, "/console/login", form: form)
                #expect(answer.status == .unauthorized, "\(form)")
                #expect(answer.body.contains("Wrong app id or admin key."), "\(form)")
                #expect(answer.headers[.setCookie] == nil)
            }
        }
    }

    @Test func withoutASessionPagesGoToLoginAndFormsAreRefused() async throws {
        try await TestHerald.with(file: false) { h in
            for path in ["/console", "/console/channels", "/console/devices", "/console/devices/x", "/console/operations"] {
                let answer = try await Self.send(h.client, .get, path)
                #expect(answer.status == .seeOther && answer.headers[.location] == "/console/login", "\(path)")
                let forged = try await Self.send(h.client, .get, path, cookie: String(repeating: "a", count: 64))
                #expect(forged.status == .seeOther, "an unknown token: \(path)")
            }
            let post = try await Self.send(h.client, .post, "/console/operations/sweep", form: "csrf=x")
            #expect(post.status == .forbidden)
        }
    }

    @Test func aFormNeedsTheSessionsTokenAndTheSameOrigin() async throws {
        try await TestHerald.with(file: false) { h in
            let cookie = try await Self.login(h.client)
            let csrf = try await Self.csrf(h.client, cookie)
            #expect(csrf.count == 64)
            let missing = try await Self.send(h.client, .post, "/console/operations/sweep", cookie: cookie, form: "")
            #expect(missing.status == .forbidden && missing.body.contains("security token"))
            let wrong = try await Self.send(
                h.client, .post, "/console/operations/sweep", cookie: cookie, form: "csrf=\(String(repeating: "0", count: 64))")
            #expect(wrong.status == .forbidden)
            let crossSite = try await Self.send(
                h.client, .post, "/console/operations/sweep", cookie: cookie, form: "csrf=\(csrf)",
                headers: [HTTPField.Name("Sec-Fetch-Site")!: "cross-site", .origin: "https://evil.example"])
            #expect(crossSite.status == .forbidden && crossSite.body.contains("did not come from"))
            let otherOrigin = try await Self.send(
                h.client, .post, "/console/operations/sweep", cookie: cookie, form: "csrf=\(csrf)",
                headers: [.origin: "https://evil.example"])
            #expect(otherOrigin.status == .forbidden)
            let crossSiteLogin = try await Self.send(
                h.client, .post, "/console/login", form: "app=shop&key=k-admin", headers: [HTTPField.Name("Sec-Fetch-Site")!: "cross-site"])
            #expect(crossSiteLogin.status == .forbidden && crossSiteLogin.headers[.setCookie] == nil)

            let swept = try await Self.send(
                h.client, .post, "/console/operations/sweep", cookie: cookie, form: "csrf=\(csrf)",
                headers: [HTTPField.Name("Sec-Fetch-Site")!: "same-origin"])
            #expect(swept.status == .seeOther && swept.headers[.location]?.hasPrefix("/console/operations?swept=") == true)
            let shown = try await Self.send(h.client, .get, try #require(swept.headers[.location]), cookie: cookie)
            #expect(shown.body.contains("Swept: 0 expired registrations removed"), "\(shown.body)")
        }
    }

    @Test func loggingOutEndsTheSessionInTheDatabase() async throws {
        try await TestHerald.with(file: false) { h in
            let cookie = try await Self.login(h.client)
            let csrf = try await Self.csrf(h.client, cookie)
            let out = try await Self.send(h.client, .post, "/console/logout", cookie: cookie, form: "csrf=\(csrf)")
            #expect(out.status == .seeOther && out.headers[.location] == "/console/login")
            #expect(out.headers[.setCookie]?.contains("Max-Age=0") == true)
            let after = try await Self.send(h.client, .get, "/console", cookie: cookie)
            #expect(after.status == .seeOther && after.headers[.location] == "/console/login", "the old cookie opens nothing")
        }
    }

    @Test func aSessionEndsAfterItsIdleTimeAndItsWholeTime() async throws {
        try await TestHerald.with(file: false) { h in
            let idle = try await Self.login(h.client)
            h.clock.advance(milliseconds: 29 * 60_000)
            #expect(try await Self.send(h.client, .get, "/console", cookie: idle).status == .ok)
            h.clock.advance(milliseconds: 29 * 60_000)
            #expect(try await Self.send(h.client, .get, "/console", cookie: idle).status == .ok, "used within the idle time: still open")
            h.clock.advance(milliseconds: 31 * 60_000)
            #expect(try await Self.send(h.client, .get, "/console", cookie: idle).status == .seeOther, "idle for 31 minutes")

            // An open Overview's background refreshes are not use: the unattended page still times out.
            let unattended = try await Self.login(h.client)
            let refresh: HTTPFields = [HTTPField.Name("Herald-Refresh")!: "1"]
            for _ in 0..<4 {
                h.clock.advance(milliseconds: 10 * 60_000)
                _ = try await Self.send(h.client, .get, "/console/running", cookie: unattended, headers: refresh)
            }
            #expect(
                try await Self.send(h.client, .get, "/console", cookie: unattended).status == .seeOther, "refreshed, yet idle 40 minutes")

            let busy = try await Self.login(h.client)
            for _ in 0..<25 {
                h.clock.advance(milliseconds: 29 * 60_000)
                _ = try await Self.send(h.client, .get, "/console", cookie: busy)
            }
            #expect(try await Self.send(h.client, .get, "/console", cookie: busy).status == .seeOther, "past 12 hours in all")
        }
    }

    @Test func oneAppsAdminSeesNothingOfAnothersData() async throws {
        try await TestHerald.with(file: false) { h in
            _ = try await h.client.call(
                .post, "/shop/k-client/messaging/registrations",
                json: #"{"deviceToken": "a1b2c3d4e5f60718a1b2", "deviceId": "shop-phone", "channels": ["shop-news"], "os": "IOS"}"#)
            let shop = try await Self.login(h.client)
            #expect(try await Self.send(h.client, .get, "/console/devices", cookie: shop).body.contains("shop-phone"))
            #expect(try await Self.send(h.client, .get, "/console/channels", cookie: shop).body.contains("shop-news"))

            let blog = try await Self.login(h.client, app: "blog", key: "b-admin")
            let devices = try await Self.send(h.client, .get, "/console/devices", cookie: blog)
            #expect(devices.status == .ok && !devices.body.contains("shop-phone"))
            #expect(!(try await Self.send(h.client, .get, "/console/channels", cookie: blog).body.contains("shop-news")))
            let device = try await Self.send(h.client, .get, "/console/devices/shop-phone", cookie: blog)
            #expect(device.status == .notFound && device.body.contains("Unknown device ID"))
            let csrf = try await Self.csrf(h.client, blog)
            let switched = try await Self.send(
                h.client, .post, "/console/devices/shop-phone/switch", cookie: blog, form: "csrf=\(csrf)&active=false")
            #expect(switched.status == .notFound)
            let record = try await h.client.call(.get, "/shop/k-admin/devices/shop-phone")
            #expect(record.body["isActive"] == .bool(true), "untouched")

            // Nor its messages, templates or configuration.
            _ = try await h.client.call(.post, "/shop/k-server/messaging/shop-news", json: #"{"message": "shop only"}"#)
            _ = try await h.client.call(.put, "/shop/k-admin/admin/pushtemplates/shop-template", json: #"{"message": "m"}"#)
            for path in ["/console", "/console/messages", "/console/templates", "/console/operations", "/console/channels"] {
                let page = try await Self.send(h.client, .get, path, cookie: blog)
                #expect(page.status == .ok, "\(path)")
                for shop in ["shop-news", "shop-template", "shop only", "k-admin", "k-client", "k-server"] {
                    #expect(!page.body.contains(shop), "\(path) shows \(shop)")
                }
            }
            #expect(try await Self.send(h.client, .get, "/console/templates/shop-template", cookie: blog).status == .notFound)
        }
    }

    @Test func theOverviewCountsTheLastDaysMessagesByOutcome() async throws {
        try await TestHerald.with(file: false) { h in
            let later = TestHerald.t0.milliseconds + 3_600_000
            let first = try await PubSubAPITests.publish(h, "news", #"{"message": "a", "publishAt": \#(later)}"#)
            _ = try await PubSubAPITests.publish(h, "news", #"{"message": "b", "publishAt": \#(later)}"#)
            #expect(try await h.client.call(.delete, "/shop/k-server/messaging/\(first)").status == .ok)
            let cookie = try await Self.login(h.client)
            let page = try await Self.send(h.client, .get, "/console", cookie: cookie)
            #expect(
                page.body.contains(#"data-status="scheduled">1<"#) && page.body.contains(#"data-status="cancelled">1<"#), "\(page.body)")
            #expect(page.body.contains(#"data-status="published">0<"#))
            // A day later they are out of the window.
            h.clock.advance(milliseconds: 86_400_001)
            let login = try await Self.login(h.client)
            #expect(try await Self.send(h.client, .get, "/console", cookie: login).body.contains(#"data-status="cancelled">0<"#))
        }
    }

    @Test func failedLoginsFromOneAddressAreThrottled() async throws {
        var console = ConsoleConfiguration()
        console.loginAttempts = 3
        try await TestHerald.with(file: false, setup: .live, console: console) { h in
            for _ in 0..<3 {
                #expect(try await Self.send(h.client, .post, "/console/login", form: "app=shop&key=nope").status == .unauthorized)
            }
            let refused = try await Self.send(h.client, .post, "/console/login", form: "app=shop&key=k-admin")
            #expect(refused.status == .tooManyRequests && refused.body.contains("Too many failed logins"))
            #expect(refused.headers[.setCookie] == nil, "not even the right key, until the failures age out")
        }
    }

    @Test func theConsoleCanBeSwitchedOff() async throws {
        var console = ConsoleConfiguration()
        console.enabled = false
        try await TestHerald.with(file: false, console: console) { h in
            let login = try await h.client.call(.get, "/console/login")
            let overview = try await h.client.call(.get, "/console")
            #expect(login.status == .notFound && overview.status == .notFound)
        }
    }

    @Test func reservedNamesAreRefusedAsAppIds() throws {
        for name in ["console", "Console", "health", "ready", "metrics", "openapi.json"] {
            #expect(throws: ConfigurationError.self, "\(name)") {
                try AppDirectory(apps: [AppConfiguration(id: name, keys: [APIKey(key: "k", role: .admin)])])
            }
        }
    }

    /// A session ends when the admin key it was opened with is no longer in the configuration (an instance
    /// restarted with the key rotated, here another instance on the same database without it).
    @Test(.enabled(if: PostgresTestDatabase.serverURL != nil, "\(PostgresTestDatabase.skipMessage)"))
    func removingTheAdminKeyEndsItsSessions() async throws {
        let rotated =
            [AppConfiguration(id: "shop", keys: [APIKey(key: "k-admin-2", role: .admin), APIKey(key: "k-server", role: .server)])]
            + TestHerald.apps.dropFirst()
        try await PostgresTestDatabase.with { url in
            try await PubSubMultiInstanceTests.instance(url) { first in
                try await PubSubMultiInstanceTests.instance(url, apps: rotated) { second in
                    let cookie = try await Self.login(first)
                    let other = try await Self.login(second, key: "k-admin-2")
                    #expect(try await Self.send(second, .get, "/console", cookie: other).status == .ok)
                    #expect(try await Self.send(second, .get, "/console", cookie: cookie).status == .seeOther, "its key is gone there")
                    #expect(try await Self.send(first, .get, "/console", cookie: cookie).status == .seeOther, "and the session with it")
                }
            }
        }
    }

    /// Two servers on one PostgreSQL database: a session made through one works through the other.
    @Test(.enabled(if: PostgresTestDatabase.serverURL != nil, "\(PostgresTestDatabase.skipMessage)"))
    func aSessionMadeThroughOneInstanceWorksThroughAnother() async throws {
        try await PostgresTestDatabase.with { url in
            try await PubSubMultiInstanceTests.instance(url) { first in
                try await PubSubMultiInstanceTests.instance(url) { second in
                    let cookie = try await Self.login(first)
                    let page = try await Self.send(second, .get, "/console/devices", cookie: cookie)
                    #expect(page.status == .ok && page.body.contains("<h1>Devices</h1>"))
                    let csrf = try await Self.csrf(second, cookie)
                    #expect(try await Self.send(second, .post, "/console/logout", cookie: cookie, form: "csrf=\(csrf)").status == .seeOther)
                    #expect(try await Self.send(first, .get, "/console", cookie: cookie).status == .seeOther, "logged out everywhere")
                }
            }
        }
    }
}
