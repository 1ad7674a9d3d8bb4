import Foundation
import HTTPTypes
import Herald
import HeraldCore
import HeraldStore
import HeraldTestSupport
import HeraldWebPush
import Hummingbird
import HummingbirdTesting
import Testing
import WebPushMock

/// The console's Web Push page: what it shows with and without the app's `webPush` block, its service
/// worker, and the registration of a browser's subscription through the registration route's checks.
/// (Subscribing itself happens in a browser: Tests/browser.)
@Suite struct ConsoleWebPushTests {
    /// The fixture key's public key, as `herald keys --vapid` prints it.
    static let publicKey = "BO0XScBpV5VYGCxt0Z1alo3aX4XTiYm4fbrT3trItMipDc3gqIdsJvgroz5lIhuIFxiefqg5qFbR1qPylPXnrfI"

    /// TestHerald's apps, shop with a `webPush` block (loopback endpoints allowed, as a test needs).
    static var apps: [AppConfiguration] {
        var apps = TestHerald.apps
        apps[0].webPush = WebPushAppConfiguration(
            privateKeyFile: FixtureFiles.path("fixtures/webpush/vapid-test.pem"), subject: "mailto:t@example.com",
            allowPrivateHosts: true)
        return apps
    }

    /// What a browser's `JSON.stringify(subscription)` gives: a real P-256 key and a 16-byte auth secret.
    static let subscription = WebPushMock.subscription(id: "x", baseURL: "https://127.0.0.1:9")

    static func form(_ values: [(String, String)]) -> String {
        values.map { "\($0.0)=\($0.1.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")" }.joined(separator: "&")
    }

    @Test func withoutAWebPushBlockThePageSaysHowToAddOne() async throws {
        try await TestHerald.with(file: false) { h in
            let cookie = try await ConsoleTests.login(h.client)
            let page = try await ConsoleTests.send(h.client, .get, "/console/webpush", cookie: cookie)
            #expect(page.status == .ok)
            #expect(page.body.contains("<h1>Web Push</h1>"))
            #expect(page.body.contains("herald keys --vapid") && page.body.contains("privateKeyFile"), "\(page.body)")
            #expect(!page.body.contains("Subscribe this browser"), "nothing else")

            let csrf = try await ConsoleTests.csrf(h.client, cookie)
            let answer = try await ConsoleTests.send(
                h.client, .post, "/console/webpush/register", cookie: cookie,
                form: Self.form([
                    ("csrf", csrf), ("channel", "console-test"), ("deviceId", "console-0a1b2c3d"), ("subscription", Self.subscription),
                ]))
            #expect(answer.status == .badRequest)
            #expect(answer.body.contains("no webPush block"), "\(answer.body)")
            #expect(try await h.store.device(app: "shop", deviceId: "console-0a1b2c3d", now: h.clock.now) == nil)
        }
    }

    @Test func withABlockThePageShowsTheKeyAndTheSubscribeForm() async throws {
        try await TestHerald.with(file: false, apps: Self.apps) { h in
            let cookie = try await ConsoleTests.login(h.client)
            let devices = try await ConsoleTests.send(h.client, .get, "/console/devices", cookie: cookie)
            #expect(devices.body.contains(#"<a href="/console/webpush">Web Push</a>"#), "linked from Devices")
            let page = try await ConsoleTests.send(h.client, .get, "/console/webpush", cookie: cookie)
            #expect(page.status == .ok)
            #expect(page.body.contains(#"<code id="webpush-key">\#(Self.publicKey)</code>"#), "\(page.body)")
            #expect(page.body.contains(#"data-webpush-key="\#(Self.publicKey)""#))
            #expect(page.body.contains(#"value="console-test""#) && page.body.contains("Subscribe this browser"))
            #expect(page.body.contains(#"role="status""#) && page.body.contains("Scripts are needed"))
            #expect(page.body.contains("HTTPS or localhost"))
            #expect(!page.body.contains("<script>"), "no inline script")
            #expect(page.body.components(separatedBy: "<h1>").count == 2, "one h1")
        }
    }

    @Test func theServiceWorkerIsServedWithoutASession() async throws {
        try await TestHerald.with(file: false) { h in
            let worker = try await ConsoleTests.send(h.client, .get, "/console/webpush-sw.js")
            #expect(worker.status == .ok)
            #expect(worker.headers[.contentType]?.hasPrefix("text/javascript") == true)
            #expect(worker.headers[.cacheControl] == "no-cache")
            #expect(worker.body.contains(#"addEventListener("push""#) && worker.body.contains("showNotification"))
            #expect(worker.body.contains(#"addEventListener("notificationclick""#) && worker.body.contains("openWindow"))
        }
    }

    @Test func aSubscriptionIsRegisteredAsAWebDeviceInTheChannel() async throws {
        try await TestHerald.with(file: false, apps: Self.apps) { h in
            let cookie = try await ConsoleTests.login(h.client)
            let csrf = try await ConsoleTests.csrf(h.client, cookie)
            let answer = try await ConsoleTests.send(
                h.client, .post, "/console/webpush/register", cookie: cookie,
                form: Self.form([
                    ("csrf", csrf), ("channel", "console-test"), ("deviceId", "console-0a1b2c3d"), ("subscription", Self.subscription),
                ]),
                headers: [HTTPField.Name("Sec-Fetch-Site")!: "same-origin"])
            #expect(answer.status == .ok, "\(answer.body)")
            let json = try JSONValue.parse(Array(answer.body.utf8))
            #expect(json["deviceId"] == .string("console-0a1b2c3d") && json["channel"] == .string("console-test"), "\(answer.body)")
            let device = try #require(try await h.store.device(app: "shop", deviceId: "console-0a1b2c3d", now: h.clock.now))
            #expect(device.os == .web)
            #expect(device.channels.map(\.rawValue) == ["console-test"])
            #expect(device.deviceToken == Self.subscription, "stored as the browser sent it")
        }
    }

    @Test func aBadSubscriptionIsRefusedWithTheAPIsMessage() async throws {
        try await TestHerald.with(file: false, apps: Self.apps) { h in
            let cookie = try await ConsoleTests.login(h.client)
            let csrf = try await ConsoleTests.csrf(h.client, cookie)
            let bad =
                #"{"endpoint":"https://127.0.0.1:9/push/x","expirationTime":null,"keys":{"p256dh":"AAAA","auth":"AAAAAAAAAAAAAAAAAAAAAA"}}"#
            let answer = try await ConsoleTests.send(
                h.client, .post, "/console/webpush/register", cookie: cookie,
                form: Self.form([("csrf", csrf), ("channel", "console-test"), ("deviceId", "console-0a1b2c3d"), ("subscription", bad)]))
            #expect(answer.status == .badRequest)
            let json = try JSONValue.parse(Array(answer.body.utf8))
            #expect(json.code == 8008, "\(answer.body)")
            #expect(answer.body.contains("deviceToken.keys.p256dh"), "\(answer.body)")
            #expect(try await h.store.device(app: "shop", deviceId: "console-0a1b2c3d", now: h.clock.now) == nil)
        }
    }

    @Test func registeringNeedsTheSessionAndItsCSRFToken() async throws {
        try await TestHerald.with(file: false, apps: Self.apps) { h in
            let values = [("channel", "console-test"), ("deviceId", "console-0a1b2c3d"), ("subscription", Self.subscription)]
            let noSession = try await ConsoleTests.send(h.client, .post, "/console/webpush/register", form: Self.form(values))
            #expect(noSession.status == .forbidden)
            let cookie = try await ConsoleTests.login(h.client)
            let noToken = try await ConsoleTests.send(h.client, .post, "/console/webpush/register", cookie: cookie, form: Self.form(values))
            #expect(noToken.status == .forbidden && noToken.body.contains("security token"))
            let csrf = try await ConsoleTests.csrf(h.client, cookie)
            let crossSite = try await ConsoleTests.send(
                h.client, .post, "/console/webpush/register", cookie: cookie, form: Self.form([("csrf", csrf)] + values),
                headers: [HTTPField.Name("Sec-Fetch-Site")!: "cross-site", .origin: "https://evil.example"])
            #expect(crossSite.status == .forbidden)
            #expect(try await h.store.device(app: "shop", deviceId: "console-0a1b2c3d", now: h.clock.now) == nil)
        }
    }
}
