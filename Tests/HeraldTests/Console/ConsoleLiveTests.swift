import APNsMock
import Foundation
import HTTPTypes
import Herald
import HeraldCore
import HeraldStore
import HeraldWebhooks
import Hummingbird
import HummingbirdTesting
import Testing

/// The console's views of what the dispatcher did (issue 25), on the whole server against the mock APNs,
/// on both databases: a message's failure reasons from the delivery history, each push service's health on
/// this instance, devices by platform and activity, channels by platform, and the webhook's backlog and the
/// configuration in force on Operations, with nothing secret on any page.
@Suite struct ConsoleLiveTests {
    @Test(arguments: PublishHarness.Database.available)
    func thePagesShowWhatTheFanOutAndTheWebhookDid(_ database: PublishHarness.Database) async throws {
        let secret = "whsec-do-not-show-1234"
        // A receiver nobody listens on: every event waits, with the failure remembered.
        let webhook = WebhookTarget(url: "http://127.0.0.1:9/hooks?token=query-secret", secret: secret, timeoutMilliseconds: 500)
        try await PublishHarness.with(database: database, webhook: webhook) { h in
            let registeredAt = h.clock.now.milliseconds
            try await h.registerDevices(0..<6)
            h.clock.advance(milliseconds: 5_000)
            h.mock.script(token: PublishHarness.token(1), .unregistered(timestamp: registeredAt + 1_000), times: 1)
            h.mock.script(token: PublishHarness.token(2), .unregistered(timestamp: registeredAt + 1_000), times: 1)
            h.mock.script(token: PublishHarness.token(4), .badDeviceToken, times: 1)
            let id = try await h.publish("news", #"{"message": "Hi"}"#)
            _ = try await h.waitFor(id, status: "published")

            // The webhook service tries the message's event and fails (nobody listens): wait for that.
            var backlog = try await h.outbox.backlog(app: "shop")
            for _ in 0..<200 where backlog.lastError == nil {
                try await Task.sleep(for: .milliseconds(25))
                backlog = try await h.outbox.backlog(app: "shop")
            }
            #expect(backlog.pending > 0 && backlog.lastError != nil, "\(backlog)")

            let cookie = try await ConsoleTests.login(h.client)
            let message = try await ConsoleTests.send(h.client, .get, "/console/messages/\(id)", cookie: cookie)
            #expect(message.status == .ok)
            #expect(message.body.contains("Why sends failed"), "\(message.body)")
            #expect(message.body.contains(#"<td>token removed: Unregistered</td><td class="number">2</td>"#), "\(message.body)")
            #expect(message.body.contains("device deactivated: BadDeviceToken"))
            let listing = try await ConsoleTests.send(h.client, .get, "/console/messages", cookie: cookie)
            #expect(listing.body.contains("2 × token removed: Unregistered"), "the commonest reason in the history")
            #expect(listing.body.contains("channel news"))

            let overview = try await ConsoleTests.send(h.client, .get, "/console", cookie: cookie)
            #expect(overview.body.contains(#"<th scope="row">APNs</th>"#), "\(overview.body)")
            // Three accepted, three refused; the last error is whichever refusal came last.
            let apns = try #require(
                overview.body.components(separatedBy: #"<th scope="row">APNs</th>"#).last?.components(separatedBy: "</tr>").first)
            #expect(apns.contains(#"<td class="number">3</td>"#) && apns.contains("open"), "\(apns)")
            #expect(apns.contains("Unregistered") || apns.contains("BadDeviceToken"), "\(apns)")
            #expect(overview.body.contains("Devices by platform") && overview.body.contains(#"<th scope="row">iOS</th>"#))
            #expect(overview.body.contains("Nothing is being sent right now."))
            let running = try await ConsoleTests.send(h.client, .get, "/console/running", cookie: cookie)
            #expect(running.status == .ok && running.body.contains("Nothing is being sent right now."))

            let channels = try await ConsoleTests.send(h.client, .get, "/console/channels", cookie: cookie)
            // Four live registrations left in news (two tokens removed), all iOS.
            #expect(
                channels.body.contains(#"<td class="number">4</td><td class="number">4</td><td class="number">0</td>"#), "\(channels.body)")

            let operations = try await ConsoleTests.send(h.client, .get, "/console/operations", cookie: cookie)
            #expect(operations.body.contains("Herald \(HeraldVersion.current)"))
            #expect(operations.body.contains("http://127.0.0.1:9/… (path not shown)"), "\(operations.body)")
            #expect(operations.body.contains("Events waiting</dt><dd>\(backlog.pending)"), "\(operations.body)")
            #expect(operations.body.contains("(of the event retried most)"))
            #expect(operations.body.contains("<code>console.idleMinutes</code>"))
            for hidden in [secret, "query-secret", "/hooks", "k-admin", "k-server"] {
                for page in [message, listing, overview, channels, operations] { #expect(!page.body.contains(hidden), "\(hidden)") }
            }
        }
    }

    @Test func theEffectiveConfigurationMasksSecretsAndNamesDefaults() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("herald-effective-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("herald.json").path
        try """
        {"database": {"url": "postgres://herald:pg-password@db.example:5432/herald"},
         "metrics": {"bearerToken": "metrics-token-secret"},
         "apps": [{"id": "shop", "keys": [{"key": "shop-admin-key-secret", "role": "admin"}],
                   "webhook": {"url": "https://hooks.example/h", "secret": "webhook-secret-value"}}]}
        """.write(toFile: file, atomically: true, encoding: .utf8)
        let configuration = try ConfigurationLoader.load(file: file, environment: ["HERALD_SWEEPER_BATCH_SIZE": "500"])
        let effective = configuration.effective
        let text = effective.map { "\($0.key)=\($0.value) (\($0.source.rawValue))" }.joined(separator: "\n")
        for secret in ["pg-password", "metrics-token-secret", "shop-admin-key-secret", "webhook-secret-value"] {
            #expect(!text.contains(secret), "\(secret) in:\n\(text)")
        }
        #expect(text.contains("sweeper.batchSize=500 (given)"), "\(text)")
        #expect(text.contains("console.idleMinutes=30 (default)"))
        #expect(text.contains("metrics.bearerToken=\(EffectiveSetting.masked) (given)"))
        #expect(text.contains("apps.0.keys.0.key=\(EffectiveSetting.masked) (given)"))
        #expect(text.contains("apps.0.keys.0.role=admin (given)"))
        #expect(text.contains("database.url=postgres://herald:***@db.example:5432/herald"), "\(text)")
    }
}
