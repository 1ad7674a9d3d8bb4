import Foundation
import HTTPTypes
import HeraldCore
import HeraldStore
import HeraldWebPush
import Hummingbird
import Logging
import NIOCore

/// The console's Web Push page: subscribes the browser it is open in with the app's VAPID public key
/// (console.js, through the service worker `webpush-sw.js`) and registers the subscription as a WEB
/// device through the registration route's own checks, to try Web Push with a real browser and a real
/// push service.
extension ConsoleRoutes {
    /// Where the page sends the subscription.
    static let webPushRegisterPath = "/console/webpush/register"

    func webPushPage(_ console: ConsoleRequest) throws -> Response {
        let app = console.session.app
        guard let block = server.apps.first(where: { $0.id == app })?.webPush else {
            return ConsolePage.page(
                title: "Web Push", current: "/console/devices", console: console,
                """
                <p>This app has no <code>webPush</code> block, so browsers cannot subscribe to it yet. To add one:</p>
                <ol>
                <li>Make the app a VAPID key pair: <code>herald keys --vapid /etc/herald/\(app)-vapid.pem</code>
                (it prints the public key browsers subscribe with).</li>
                <li>Give the app the block in the configuration file, then restart Herald:
                <pre><code>"webPush": {"privateKeyFile": "/etc/herald/\(app)-vapid.pem",
                            "subject": "mailto:you@example.com"}</code></pre></li>
                </ol>
                <p>docs/web-push.md says more (push service hosts, CORS for your own pages).</p>
                """)
        }
        guard let key = applicationServerKeys[app] else {
            throw HeraldFault(
                code: 8008, kind: .validation,
                message: "The app's VAPID key file (webPush.privateKeyFile) could not be read when Herald started.")
        }
        let body: HTML = """
            <p>Subscribes this browser to Web Push with the app's VAPID public key and registers the subscription with
            Herald as a <strong>WEB</strong> device, so you can send it a push through the browser's own push service
            (this machine needs internet access for that).</p>
            <p class="muted">Service workers need HTTPS or localhost (<code>http://127.0.0.1</code> counts as local).</p>
            <dl class="facts">
            <dt>Public key (applicationServerKey)</dt><dd><code id="webpush-key">\(key)</code></dd>
            <dt>Subject</dt><dd>\(block.subject)</dd>
            </dl>
            <noscript><p class="error">Scripts are needed for this page: subscribing happens in the browser.</p></noscript>
            <form id="webpush" class="stack compact" method="post" action="\(Self.webPushRegisterPath)" data-webpush-key="\(key)">
            \(ConsolePage.csrf(console))
            \(ConsolePage.field("channel", "Channel", value: "console-test", attributes: "required maxlength=\"200\""))
            \(ConsolePage.field("deviceId", "Device id", value: "", hint: "Kept in this browser, so it registers as the same device next time.",
                attributes: "required maxlength=\"200\" autocapitalize=\"off\" spellcheck=\"false\""))
            <button type="submit" disabled>Subscribe this browser</button>
            </form>
            <p id="webpush-status" role="status"></p>
            <p id="webpush-next" hidden>Now send it a push: <a id="webpush-send-channel" href="/console/send">to the channel</a> ·
            <a id="webpush-send-device" href="/console/send">to this device only</a></p>
            """
        return ConsolePage.page(title: "Web Push", current: "/console/devices", console: console, body)
    }

    /// Registers the browser's subscription (`subscription`, as `JSON.stringify` gives it) as a WEB device
    /// `deviceId` in `channel`, with the registration route's checks. Answers JSON for console.js:
    /// `{"deviceId","channel"}`, or the API's `{"code","message"}` with its status.
    func registerWebPush(_ console: ConsoleRequest) async -> Response {
        let app = console.session.app
        var response: Response
        do {
            guard server.apps.first(where: { $0.id == app })?.webPush != nil else {
                throw HeraldFault.invalidParameter(
                    "webPush", "this app has no webPush block, so its browsers cannot subscribe (docs/web-push.md)")
            }
            let channel = (console.form["channel"] ?? "").trimmingCharacters(in: .whitespaces)
            let deviceId = (console.form["deviceId"] ?? "").trimmingCharacters(in: .whitespaces)
            let body: JSONValue = .object([
                "deviceId": .string(deviceId), "os": .string("WEB"), "deviceToken": .string(console.form["subscription"] ?? ""),
                "channels": .array([.string(channel)]),
            ])
            let now = clock.now
            let registration = try RegistrationRequest(json: body, now: now, rules: apps.tokenRules(app: app))
            _ = try await store.register(app: app, registration, now: now)
            // The Channels page counts the new registration at once.
            channelCounts.forget(prefix: "\(app)\u{0}")
            channelPlatforms.forget(prefix: "\(app)\u{0}")
            logger.info("console web push registration", metadata: ["herald.app": "\(app)"])
            response = JSONBody.response(.object(["deviceId": .string(deviceId), "channel": .string(channel)]))
        } catch let fault as HeraldFault {
            response = FaultMiddleware<HeraldRequestContext>.response(fault)
        } catch is StoreUnavailable, is WriteQueueFull {
            response = FaultMiddleware<HeraldRequestContext>.response(.storeUnavailable)
        } catch {
            logger.error("console web push registration failed", metadata: ["herald.error": "\(String(reflecting: type(of: error)))"])
            response = FaultMiddleware<HeraldRequestContext>.response(.internalError)
        }
        response.headers[.cacheControl] = "no-store"
        ConsoleCookie.secureHeaders(&response.headers)
        return response
    }

    /// The service worker (no session needed: the browser fetches it to install and update it). Not
    /// cached, so a new Herald's worker replaces the old one at once. Its own policy: it runs no other
    /// script and fetches nothing, but a notification's icon may come from any site (`web-icon`).
    func serviceWorker() -> Response {
        let headers: HTTPFields = [
            .contentType: "text/javascript; charset=utf-8", .cacheControl: "no-cache",
            HTTPField.Name("Content-Security-Policy")!: "default-src 'none'; img-src * data:",
            HTTPField.Name("X-Content-Type-Options")!: "nosniff",
        ]
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: Self.serviceWorkerScript))
    }

    static let serviceWorkerScript = ByteBuffer(bytes: PackageResources.webpush_sw_js)

    /// Each app's `applicationServerKey`, read once from its `webPush.privateKeyFile` (start-up has
    /// already checked the file; an app whose file cannot be read has none, and its page says so).
    static func applicationServerKeys(_ apps: [AppConfiguration]) -> [String: String] {
        var keys: [String: String] = [:]
        for app in apps {
            guard let block = app.webPush, let key = try? block.clientConfiguration().vapidKey.applicationServerKey else { continue }
            keys[app.id] = key
        }
        return keys
    }
}
