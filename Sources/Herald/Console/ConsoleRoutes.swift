import Foundation
import HTTPTypes
import HeraldCore
import HeraldDispatch
import HeraldStore
import Hummingbird
import Logging
import NIOCore

/// The web console at `/console` (issue 25): log in with an app id and its admin key into a session kept
/// in the database, then pages rendered here (no client-side app; console.js only formats times, asks
/// before destructive forms and follows live progress). Every page reads the stores directly for
/// the session's app; the admin key is never kept, shown or logged.
struct ConsoleRoutes {
    let sessions: any ConsoleSessionStore
    let store: any RegistrationStore
    let messages: any MessageStore
    let dispatcher: Dispatcher?
    let registry: any DeviceRegistryStore
    let templates: any PushTemplateStore
    let apps: AppDirectory
    let clock: any WallClock
    let configuration: ConsoleConfiguration
    /// The whole configuration in force (Operations shows it, secrets masked, and each app's webhook).
    let server: HeraldConfiguration
    let outbox: (any WebhookOutboxStore)?
    let sweeper: Sweeper
    let readiness: Readiness
    let throttle: LoginThrottle
    /// The Overview's device counts per app, for a minute (they take a pass over the app's devices).
    let deviceSummaries = ConsoleCache<[DeviceOS: DeviceCounts]>()
    /// The channels' live registration counts (Overview, Channels), per app and page, for a minute: each
    /// count reads every registration of its channel.
    let channelCounts = ConsoleCache<[ChannelSummary]>()
    /// The Overview's 7-day delivery chart per app, drawn, for a minute (it adds up 48 hours of minute rows).
    let deliveryWeeks = ConsoleCache<HTML>()
    /// The Channels page's counts by platform per app and channel, for a minute (they read every registration).
    let channelPlatforms = ConsoleCache<[ChannelName: [DeviceOS: Int]]>()
    /// Each message's recipients as its progress bar counts them, per app and message, counted once on this
    /// instance (nothing stores them) and kept a day.
    let targets = ConsoleCache<FanOutPace.Target>(ttl: .seconds(86_400))
    /// Each app's VAPID public key for the Web Push page, read once from its key file.
    let applicationServerKeys: [String: String]
    let logger: Logger
    /// This instance's live subscribers per channel (the Channels page), when pub/sub runs here.
    var live: ConsoleLiveSubscribers?
    /// The Live Activity publish route's code (the Send page's Live Activity composer publishes through it).
    var liveActivityPublish: LiveActivityPublish?
    /// The broadcast channel routes' code (the Live Activities page); nil without a database to keep them in.
    var broadcastChannels: LiveActivityChannelRoutes?

    init(
        sessions: any ConsoleSessionStore, store: any RegistrationStore, messages: any MessageStore, dispatcher: Dispatcher?,
        registry: any DeviceRegistryStore, templates: any PushTemplateStore,
        apps: AppDirectory,
        clock: any WallClock, server: HeraldConfiguration, outbox: (any WebhookOutboxStore)?, sweeper: Sweeper, readiness: Readiness,
        logger: Logger
    ) {
        self.sessions = sessions
        self.store = store
        self.messages = messages
        self.dispatcher = dispatcher
        self.registry = registry
        self.templates = templates
        self.apps = apps
        self.clock = clock
        self.configuration = server.console
        self.server = server
        self.outbox = outbox
        self.sweeper = sweeper
        self.readiness = readiness
        self.throttle = LoginThrottle(limit: server.console.loginAttempts)
        self.applicationServerKeys = Self.applicationServerKeys(server.apps)
        self.logger = logger
    }

    func add(to router: Router<HeraldRequestContext>) {
        router.get("/console/assets/{name}") { _, context in try asset(context) }
        router.get("/console/login") { request, _ in loginPage(request) }
        router.get("/console/webpush-sw.js") { _, _ in serviceWorker() }
        router.post("/console/login") { request, context in try await login(request, context) }
        let pages = router.group("/console").add(
            middleware: ConsoleSessionMiddleware(sessions: sessions, apps: apps, clock: clock, policy: configuration.policy))
        pages.post("logout") { request, context in try await logout(request, context) }
        pages.get("") { request, context in await page(context) { try await overview(request, $0) } }
        pages.get("running") { _, context in await page(context) { try await runningFragment($0) } }
        pages.get("running/progress") { _, context in await page(context) { try await runningProgress($0) } }
        pages.get("channels") { request, context in await page(context) { try await channels(request, $0) } }
        pages.post("channels/{name}/delete") { _, context in await page(context) { try await deleteChannel($0, context) } }
        pages.get("devices") { request, context in await page(context) { try await devices(request, $0) } }
        pages.get("devices/{deviceId}") { _, context in await page(context) { try await device($0, context) } }
        pages.post("devices/{deviceId}/push") { _, context in await page(context) { try await testPush($0, context) } }
        pages.post("devices/{deviceId}/switch") { _, context in await page(context) { try await switchDevice($0, context) } }
        pages.get("webpush") { _, context in await page(context) { try webPushPage($0) } }
        pages.post("webpush/register") { _, context in
            guard let console = context.console else { return ConsolePage.redirect(to: "/console/login") }
            return await registerWebPush(console)
        }
        pages.get("messages") { request, context in await page(context) { try await messagesPage(request, $0) } }
        pages.get("messages/{messageId}") { _, context in await page(context) { try await messagePage($0, context) } }
        pages.get("messages/{messageId}/progress") { _, context in await page(context) { try await messageProgress($0, context) } }
        pages.post("messages/{messageId}/cancel") { _, context in await page(context) { try await cancelMessage($0, context) } }
        pages.get("send") { request, context in await page(context) { try await sendPage(request, $0) } }
        pages.post("send") { _, context in await page(context) { try await send($0) } }
        pages.get("templates") { _, context in await page(context) { try await templatesPage($0) } }
        pages.post("templates") { _, context in await page(context) { try await saveTemplate($0, context) } }
        pages.get("templates/{templateName}") { request, context in
            await page(context) { try await templatePage($0, context, saved: try QueryParameters(request)["saved"] == "1") }
        }
        pages.post("templates/{templateName}") { _, context in await page(context) { try await saveTemplate($0, context) } }
        pages.post("templates/{templateName}/delete") { _, context in await page(context) { try await deleteTemplate($0, context) } }
        pages.post("templates/{templateName}/send") { _, context in await page(context) { try await sendTemplate($0, context) } }
        pages.get("live-activities") { request, context in await page(context) { try await liveActivitiesPage(request, $0) } }
        pages.post("live-activities/create") { _, context in await page(context) { try await createBroadcastChannel($0) } }
        pages.post("live-activities/bind") { _, context in await page(context) { try await bindBroadcastChannel($0) } }
        pages.post("live-activities/delete") { _, context in await page(context) { try await deleteBroadcastChannel($0) } }
        pages.post("send/live-activity") { _, context in await page(context) { try await sendLiveActivity($0) } }
        pages.get("operations") { request, context in await page(context) { try await operations(request, $0) } }
        pages.post("operations/sweep") { _, context in await page(context) { try await sweep($0) } }
    }

    /// Runs a page's body; an error becomes the page with its message (never a stack or a 500 body).
    private func page(_ context: HeraldRequestContext, _ body: (ConsoleRequest) async throws -> Response) async -> Response {
        guard let console = context.console else { return ConsolePage.redirect(to: "/console/login") }
        do {
            return try await body(console)
        } catch {
            if !(error is HeraldFault) {
                logger.error("console page failed", metadata: ["herald.error": "\(String(reflecting: type(of: error)))"])
            }
            let status: HTTPResponse.Status =
                (error as? HeraldFault).map { FaultMiddleware<HeraldRequestContext>.status(of: $0.kind) } ?? .internalServerError
            return ConsolePage.page(
                title: "Not possible", current: "", console: console, status: status,
                "<p class=\"error\" role=\"alert\">\(ConsolePage.message(error))</p><p><a href=\"/console\">Back to the overview</a></p>")
        }
    }

    // MARK: Assets

    static let assets: [String: (type: String, body: ByteBuffer)] = [
        "console.css": ("text/css; charset=utf-8", ByteBuffer(bytes: PackageResources.console_css)),
        "console.js": ("text/javascript; charset=utf-8", ByteBuffer(bytes: PackageResources.console_js)),
        "favicon.svg": ("image/svg+xml", ByteBuffer(bytes: PackageResources.favicon_svg)),
    ]

    func asset(_ context: HeraldRequestContext) throws -> Response {
        guard let name = context.parameters.get("name"), let asset = Self.assets[name] else { throw HeraldFault.noSuchRoute }
        var headers: HTTPFields = [.contentType: asset.type, .cacheControl: "public, max-age=300"]
        ConsoleCookie.secureHeaders(&headers)
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: asset.body))
    }

    // MARK: Logging in and out

    func loginPage(_ request: Request, error: String? = nil, app: String = "", status: HTTPResponse.Status = .ok) -> Response {
        let alert: HTML = error.map { "<p class=\"error\" role=\"alert\" id=\"login-error\">\($0)</p>" } ?? ""
        return ConsolePage.document(
            title: "Log in",
            body: """
                <main id="main" class="narrow">
                <h1>Herald console</h1>
                <p>Log in with an app id and one of its <strong>admin</strong> keys.</p>
                \(alert)
                <form method="post" action="/console/login" class="stack">
                  <label for="app">App id</label>
                  <input id="app" name="app" value="\(app)" required autocomplete="username" autocapitalize="off" spellcheck="false">
                  <label for="key">Admin key</label>
                  <input id="key" name="key" type="password" required autocomplete="current-password">
                  <button type="submit">Log in</button>
                </form>
                </main>
                """, status: status)
    }

    func login(_ request: Request, _ context: HeraldRequestContext) async throws -> Response {
        guard ConsoleCookie.sameOrigin(request) else {
            return ConsolePage.refusal(.forbidden, "Refused: this login did not come from the Herald console's page.")
        }
        let address = context.remoteAddress?.ipAddress ?? "unknown"
        if let wait = throttle.allowed(address) {
            let minutes = max(1, Int((Double(wait.components.seconds) / 60).rounded(.up)))
            return loginPage(
                request, error: "Too many failed logins from your address. Try again in \(minutes) minute\(minutes == 1 ? "" : "s").",
                status: .tooManyRequests)
        }
        let form = try await ConsolePage.form(request)
        let app = (form["app"] ?? "").trimmingCharacters(in: .whitespaces)
        let key = form["key"] ?? ""
        let appId: String
        do {
            appId = try apps.authorize(appId: app, apiKey: key, requires: .admin)
        } catch {
            throttle.failed(address)
            logger.notice("console login refused", metadata: ["herald.app": "\(app.prefix(64))", "herald.address": "\(address)"])
            return loginPage(request, error: "Wrong app id or admin key.", app: String(app.prefix(200)), status: .unauthorized)
        }
        throttle.succeeded(address)
        let token = ConsoleCookie.newToken()
        let now = clock.now
        try await sessions.create(
            tokenHash: ConsoleCookie.hash(token),
            session: ConsoleSession(
                app: appId, keyHash: AppDirectory.hash(key), csrf: RandomHex.make(bytes: 32), createdAt: now, lastSeenAt: now))
        logger.info("console login", metadata: ["herald.app": "\(appId)"])
        // Sessions that timed out go as new ones come, so the table holds about the live ones.
        _ = try? await sessions.prune(now: now, policy: configuration.policy)
        return ConsolePage.redirect(
            to: "/console",
            headers: [
                .setCookie: ConsoleCookie.setting(token, secure: ConsoleCookie.secure(request, configured: configuration.secureCookie))
            ])
    }

    func logout(_ request: Request, _ context: HeraldRequestContext) async throws -> Response {
        if let console = context.console { try await sessions.delete(tokenHash: console.tokenHash) }
        return ConsolePage.redirect(
            to: "/console/login",
            headers: [.setCookie: ConsoleCookie.clearing(secure: ConsoleCookie.secure(request, configured: configuration.secureCookie))])
    }
}
