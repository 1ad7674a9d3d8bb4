import Foundation
import HTTPTypes
import HeraldCore
import HeraldStore
import Hummingbird
import NIOCore

/// A console request past the session check: its session, the form it posted (empty for a GET), and
/// the session's token hash (for logging out).
struct ConsoleRequest: Sendable {
    let session: ConsoleSession
    let tokenHash: String
    let form: QueryParameters
}

/// The console's cookie and its security headers.
enum ConsoleCookie {
    static let name = "herald_console"

    /// A new session token: 32 random bytes, as hex; the database keeps only its SHA-256.
    static func newToken() -> String { RandomHex.make(bytes: 32) }

    static func hash(_ token: String) -> String { AppDirectory.hash(token) }

    /// The token from the request's `Cookie` header(s), if it has one of the right shape.
    static func token(_ request: Request) -> String? {
        for header in request.headers[values: .cookie] {
            for pair in header.split(separator: ";") {
                let parts = pair.split(separator: "=", maxSplits: 1)
                guard parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces) == name else { continue }
                let value = parts[1].trimmingCharacters(in: .whitespaces)
                if value.utf8.count == 64, value.utf8.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) }) { return value }
            }
        }
        return nil
    }

    /// Whether the cookie should be `Secure`: configured so, or the request came through a TLS proxy.
    static func secure(_ request: Request, configured: Bool) -> Bool {
        configured || request.headers[HTTPField.Name("X-Forwarded-Proto")!]?.lowercased() == "https"
    }

    static func setting(_ token: String, secure: Bool) -> String {
        "\(name)=\(token); Path=/console; HttpOnly; SameSite=Strict" + (secure ? "; Secure" : "")
    }

    static func clearing(secure: Bool) -> String {
        "\(name)=; Path=/console; HttpOnly; SameSite=Strict; Max-Age=0" + (secure ? "; Secure" : "")
    }

    /// On every console answer: scripts and styles from /console/assets only, nothing inline, no framing.
    /// The header console.js sends with a region's background refresh (`data-refresh`).
    static let refreshHeader = HTTPField.Name("Herald-Refresh")!

    static let contentSecurityPolicy =
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
        + "form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

    static func secureHeaders(_ headers: inout HTTPFields) {
        headers[HTTPField.Name("Content-Security-Policy")!] = contentSecurityPolicy
        headers[HTTPField.Name("X-Content-Type-Options")!] = "nosniff"
        // Not no-referrer: with it Chromium sends `Origin: null` on the console's own form posts.
        headers[HTTPField.Name("Referrer-Policy")!] = "same-origin"
        headers[HTTPField.Name("X-Frame-Options")!] = "DENY"
    }

    /// A state-changing request must come from a console page: a browser says where a request comes from
    /// (`Sec-Fetch-Site`, `Origin`); one from another site is refused whatever else it carries.
    static func sameOrigin(_ request: Request) -> Bool {
        if let site = request.headers[HTTPField.Name("Sec-Fetch-Site")!], site != "same-origin", site != "none" { return false }
        guard let origin = request.headers[.origin] else { return true }
        // "null" (an opaque origin) and anything that is not this host and port are another site.
        guard let url = URL(string: origin), let host = url.host(percentEncoded: false), let authority = request.head.authority else {
            return false
        }
        return host + (url.port.map { ":\($0)" } ?? "") == authority
    }

    /// Compares without stopping at the first difference.
    static func equal(_ lhs: String, _ rhs: String) -> Bool {
        let a = Array(lhs.utf8)
        let b = Array(rhs.utf8)
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for index in a.indices { difference |= a[index] ^ b[index] }
        return difference == 0
    }
}

/// Failed console logins per client address in a sliding window, in this instance's memory (so with
/// several instances a client may try that many times on each). Bounded: the oldest addresses go first.
final class LoginThrottle: Sendable {
    private struct State {
        var failures: [String: [ContinuousClock.Instant]] = [:]
    }

    let limit: Int
    let window: Duration
    static let maxAddresses = 10_000
    private let state = Locked(State())

    init(limit: Int, window: Duration = .seconds(15 * 60)) {
        self.limit = limit
        self.window = window
    }

    /// Whether `address` may try again now; if not, how long until it may.
    func allowed(_ address: String) -> Duration? {
        let now = ContinuousClock.now
        return state.withLock { state in
            let recent = (state.failures[address] ?? []).filter { now - $0 < window }
            state.failures[address] = recent.isEmpty ? nil : recent
            guard recent.count >= limit, let oldest = recent.first else { return nil }
            return window - (now - oldest)
        }
    }

    func failed(_ address: String) {
        let now = ContinuousClock.now
        state.withLock { state in
            if state.failures[address] == nil, state.failures.count >= Self.maxAddresses {
                // Forget the address whose last failure is oldest.
                if let oldest = state.failures.min(by: { ($0.value.last ?? now) < ($1.value.last ?? now) })?.key {
                    state.failures[oldest] = nil
                }
            }
            state.failures[address, default: []].append(now)
        }
    }

    func succeeded(_ address: String) {
        state.withLock { $0.failures[address] = nil }
    }
}

/// Lets a console page through only with a live session (else: a GET goes to the login page, a POST is
/// refused), and a POST only with the session's CSRF token from the same origin; sets `context.console`.
struct ConsoleSessionMiddleware: RouterMiddleware {
    typealias Context = HeraldRequestContext
    let sessions: any ConsoleSessionStore
    let apps: AppDirectory
    let clock: any WallClock
    let policy: ConsoleSessionPolicy

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var live: ConsoleSession?
        if let token = ConsoleCookie.token(request),
            let session = try await sessions.session(
                tokenHash: ConsoleCookie.hash(token), now: clock.now, policy: policy,
                // console.js marks its background refreshes, and progress streams (EventSource) say what they
                // accept: neither may keep an unattended page's session alive.
                touch: request.headers[ConsoleCookie.refreshHeader] == nil && request.headers[.accept] != "text/event-stream")
        {
            // The admin key it was opened with has been removed from the configuration: it ends.
            if apps.hasAdminKey(app: session.app, hash: session.keyHash) {
                live = session
            } else {
                try await sessions.delete(tokenHash: ConsoleCookie.hash(token))
            }
        }
        guard let token = ConsoleCookie.token(request), let session = live else {
            if request.method == .get || request.method == .head { return ConsolePage.redirect(to: "/console/login") }
            return ConsolePage.refusal(.forbidden, "Your console session has ended. Log in again.")
        }
        var form = try QueryParameters(encoded: "")
        if request.method == .post {
            guard ConsoleCookie.sameOrigin(request) else {
                return ConsolePage.refusal(.forbidden, "Refused: this request did not come from a Herald console page.")
            }
            form = try await ConsolePage.form(request)
            guard let csrf = form["csrf"], ConsoleCookie.equal(csrf, session.csrf) else {
                return ConsolePage.refusal(
                    .forbidden, "Refused: the form's security token is missing or out of date. Reload the page and try again.")
            }
        }
        var context = context
        context.console = ConsoleRequest(session: session, tokenHash: ConsoleCookie.hash(token), form: form)
        context.caller = AppCaller(appId: session.app)
        return try await next(request, context)
    }
}
