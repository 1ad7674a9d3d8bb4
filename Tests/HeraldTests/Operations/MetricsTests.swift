import APNsMock
import Foundation
import HTTPTypes
import HeraldCore
import HeraldDispatch
import HeraldMetrics
import HeraldTestSupport
import Hummingbird
import HummingbirdTesting
import Logging
import Testing

@testable import Herald

/// `GET /metrics` (issue 11): after work with known outcomes the counts are right, and no label holds a
/// token, a device id or a key.
@Suite struct MetricsTests {
    @Test(arguments: PublishHarness.Database.available)
    func aFanOutWithKnownOutcomesIsCountedExactly(_ database: PublishHarness.Database) async throws {
        try await PublishHarness.with(database: database) { h in
            let registeredAt = h.clock.now.milliseconds
            // 4 devices through the API (counted as registrations and requests), 36 through the store.
            for index in 0..<4 {
                let answer = try await h.client.call(
                    .post, PublishHarness.register,
                    json: #"{"deviceToken": "\#(PublishHarness.token(index))", "deviceId": "dev-\#(index)", "channels": ["news"]}"#)
                #expect(answer.status == .ok)
            }
            try await h.registerDevices(4..<40)
            h.clock.advance(milliseconds: 5_000)
            h.mock.script(token: PublishHarness.token(1), .unregistered(timestamp: registeredAt + 1_000), times: 1)
            h.mock.script(token: PublishHarness.token(2), .badDeviceToken, times: 1)
            h.mock.script(token: PublishHarness.token(3), .reject(status: 400, reason: "BadCollapseId"), times: 1)
            // Refused once, then accepted on the retry.
            h.mock.script(token: PublishHarness.token(5), .reject(status: 503, reason: "ServiceUnavailable"), times: 1)
            let id = try await h.publish("news", #"{"message": "Hi"}"#)
            try await h.waitFor(id, status: "published")
            // The message is published by the fan-out's last write; the fan-out itself ends just after.
            var metrics = try await Exposition.read(h.client)
            let deadline = ContinuousClock.now + .seconds(10)
            while metrics["herald_fanouts_running"] != 0, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
                metrics = try await Exposition.read(h.client)
            }
            let apns = #"provider="apns""#
            #expect(metrics[#"herald_notifications_total{\#(apns),outcome="delivered",reason="none"}"#] == 37)
            #expect(metrics[#"herald_notifications_total{\#(apns),outcome="rejected",reason="Unregistered"}"#] == 1)
            #expect(metrics[#"herald_notifications_total{\#(apns),outcome="rejected",reason="BadDeviceToken"}"#] == 1)
            #expect(metrics[#"herald_notifications_total{\#(apns),outcome="rejected",reason="BadCollapseId"}"#] == 1)
            #expect(metrics[#"herald_notifications_total{\#(apns),outcome="rejected",reason="ServiceUnavailable"}"#] == 1)
            #expect(metrics[#"herald_provider_request_duration_seconds_count{\#(apns)}"#] == 41)
            #expect(metrics[#"herald_retries_total{\#(apns)}"#] == 1)
            #expect(metrics[#"herald_tokens_removed_total{\#(apns)}"#] == 1)
            #expect(metrics[#"herald_tokens_deactivated_total{\#(apns)}"#] == 1)
            #expect(metrics[#"herald_notifications_in_flight{\#(apns)}"#] == 0)
            #expect(metrics[#"herald_messages_finished_total{status="published"}"#] == 1)
            #expect(metrics["herald_fanouts_running"] == 0)
            // The APNs client started and replaced no connection.
            #expect(metrics[#"herald_provider_connections_replaced_total{provider="apns"}"#] == 0)
            #expect(metrics["herald_registrations_total"] == 4)
            #expect(
                metrics[#"herald_http_requests_total{method="POST",route="/{appId}/{apiKey}/messaging/registrations",status="200"}"#] == 4)
            #expect(
                metrics[#"herald_http_request_duration_seconds_count{method="POST",route="/{appId}/{apiKey}/messaging/{target}"}"#] == 1)
            // Every registration went through group commit; the fan-out checkpointed at least once.
            #expect(metrics[#"herald_group_commit_batch_size_sum{write="registrations"}"#] == 40)
            #expect((metrics[#"herald_db_write_duration_seconds_count{write="checkpoint"}"#] ?? 0) >= 1)

            let text = h.exporter.exposition()
            Exposition.expectNoSecrets(text, tokens: (0..<40).map(PublishHarness.token), devices: (0..<40).map { "dev-\($0)" })
            // Every metric is in the exposition but the sweep count (no sweep ran), DeviceCheck's (no call
            // was made; DeviceCheckTests counts them), the protocol errors (HostileHTTPTests counts them)
            // publish-subscribe's (PubSubMetricsTests counts them), Backendless RT's (RTMetricsTests) and the
            // PostgreSQL primary's, reported with several hosts only (PostgresFailoverTests).
            let unused = [
                HeraldMetrics.Name.sweeps, HeraldMetrics.Name.deviceCheckCalls, HeraldMetrics.Name.deviceCheckDuration,
                HeraldMetrics.Name.httpProtocolErrors, HeraldMetrics.Name.subscriptionsCreated, HeraldMetrics.Name.streamsOpen,
                HeraldMetrics.Name.pubsubDelivered, HeraldMetrics.Name.rtConnections, HeraldMetrics.Name.rtSubscriptions,
                HeraldMetrics.Name.rtDisconnects, HeraldMetrics.Name.rtRefused, HeraldMetrics.Name.databasePrimary,
            ]
            for name in HeraldMetrics.Name.all where !unused.contains(name) {
                #expect(text.contains("# TYPE \(name) "), "\(name) is missing")
            }
        }
    }

    @Test func launchesDeactivationsCancelsAndSweepsAreCounted() async throws {
        try await PublishHarness.with { h in
            let launch = try await h.client.call(.post, "/shop/k-client/devices/phone-1/launches", json: #"{"appVersion": "1.0"}"#)
            #expect(launch.status == .ok)
            let off = try await h.client.call(.post, "/shop/k-admin/devices/phone-1/deactivate", json: #"{"reason": "lost"}"#)
            #expect(off.status == .ok)
            // Scheduled for later, then cancelled.
            let later = h.clock.now.milliseconds + 3_600_000
            let id = try await h.publish("news", #"{"message": "Later", "publishAt": \#(later)}"#)
            #expect(try await h.client.call(.delete, PublishHarness.publish + "/" + id).status == .ok)
            #expect(try await h.client.call(.post, "/shop/k-admin/admin/sweep").status == .ok)
            // A request no route matches is counted under one label, whatever its path.
            #expect(try await h.client.call(.get, "/shop/k-client/no/such/route/xyz").status == .notFound)

            let metrics = try await Exposition.read(h.client)
            #expect(metrics["herald_launches_total"] == 1)
            #expect(metrics["herald_devices_deactivated_total"] == 1)
            #expect(metrics[#"herald_messages_finished_total{status="cancelled"}"#] == 1)
            #expect(metrics[#"herald_sweeps_total{trigger="admin"}"#] == 1)
            #expect(metrics["herald_sweep_duration_seconds_count"] == 1)
            #expect(metrics[#"herald_http_requests_total{method="GET",route="NotFound",status="404"}"#] == 1)
            #expect(metrics[#"herald_http_requests_total{method="DELETE",route="/{appId}/{apiKey}/messaging/{target}",status="200"}"#] == 1)
            #expect(metrics[#"herald_group_commit_batch_size_count{write="launches"}"#] == 1)
            Exposition.expectNoSecrets(h.exporter.exposition(), tokens: [], devices: ["phone-1"])
        }
    }

    @Test func theBearerTokenGuardsMetrics() async throws {
        try await TestHerald.with(metrics: .init(bearerToken: "metrics-token-0123456789")) { h in
            let missing = try await h.client.execute(uri: "/metrics", method: .get) { $0 }
            #expect(missing.status == .unauthorized)
            #expect(missing.headers[.wwwAuthenticate] == "Bearer")
            let wrong = try await h.client.execute(
                uri: "/metrics", method: .get, headers: [.authorization: "Bearer metrics-token-0123456780"]
            ) {
                $0
            }
            #expect(wrong.status == .unauthorized)
            let body = try JSONValue.parse(Array(wrong.body.readableBytesView))
            #expect(body.code == 401)
            let right = try await h.client.execute(
                uri: "/metrics", method: .get, headers: [.authorization: "Bearer metrics-token-0123456789"]
            ) {
                $0
            }
            #expect(right.status == .ok)
            #expect(right.headers[.contentType]?.hasPrefix("text/plain; version=0.0.4") == true)
            #expect(String(buffer: right.body).contains("herald_http_requests_total{"))
        }
    }

    @Test func switchedOffThereIsNoMetricsRoute() async throws {
        var metrics = HeraldConfiguration.Metrics()
        metrics.enabled = false
        try await TestHerald.with(metrics: metrics) { h in
            let answer = try await h.client.call(.get, "/metrics")
            #expect(answer.status == .notFound && answer.body.code == 404)
        }
    }

    /// A client counts the connections it replaced from its start; the counter gets what it replaced since the
    /// last exposition, so it only goes up, once per replacement, however often it is read.
    @Test func replacedConnectionsAreCountedOnceEach() throws {
        let exporter = MetricsExporter()
        let client = CountingClient()
        let clients = ProviderClients(
            factories: ["shop": [.apns: { _ in client }], "blog": [.apns: { _ in client }]], logger: Logger(label: "test"))
        exporter.beforeExposition { [metrics = exporter.metrics] in clients.reportReplacedConnections(to: metrics) }
        let series = #"herald_provider_connections_replaced_total{provider="apns"}"#
        #expect(Exposition.parse(exporter.exposition())[series] == nil, "no client has started")
        _ = try clients.client(for: "shop", .apns)
        #expect(Exposition.parse(exporter.exposition())[series] == 0)
        client.replaced.withLock { $0 = 2 }
        #expect(Exposition.parse(exporter.exposition())[series] == 2)
        #expect(Exposition.parse(exporter.exposition())[series] == 2, "read again: nothing new")
        client.replaced.withLock { $0 = 5 }
        // A second app's client (here the same counts) adds its own from its start.
        _ = try clients.client(for: "blog", .apns)
        #expect(Exposition.parse(exporter.exposition())[series] == 10)
    }

    /// A push client that sends nothing and reports the replaced connections it is told.
    final class CountingClient: PushClient {
        let replaced = Locked(0)
        var provider: PushProvider { .apns }
        func sender(for contents: MessageContents) -> (any MessageSender)? { nil }
        var maxInFlight: Int { 1 }
        func shutdown() {}
        var connections: ClientConnections { ClientConnections(open: 1, inFlight: 0, replaced: replaced.withLock { $0 }) }
    }

    @Test func constantTimeComparisonComparesWholeStrings() {
        #expect(MetricsRoutes.equalInConstantTime("Bearer abc", "Bearer abc"))
        #expect(!MetricsRoutes.equalInConstantTime("Bearer abc", "Bearer abd"))
        #expect(!MetricsRoutes.equalInConstantTime("Bearer ab", "Bearer abc"))
        #expect(!MetricsRoutes.equalInConstantTime("", "Bearer abc"))
    }
}

/// The exposition as a table of series (`name{labels}`) to values.
enum Exposition {
    static func read(_ client: any TestClientProtocol) async throws -> [String: Double] {
        let text = try await client.execute(uri: "/metrics", method: .get) { response in
            #expect(response.status == .ok)
            return String(buffer: response.body)
        }
        return parse(text)
    }

    static func parse(_ text: String) -> [String: Double] {
        var series: [String: Double] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else { continue }
            series[String(line[..<space])] = value
        }
        return series
    }

    /// No label value holds a device token, a device id or any of the test apps' keys.
    static func expectNoSecrets(_ text: String, tokens: [String], devices: [String], sourceLocation: SourceLocation = #_sourceLocation) {
        let keys = TestHerald.apps.flatMap { $0.keys.map(\.key) }
        for secret in tokens + devices + keys where text.contains(secret) {
            Issue.record("the metrics hold '\(secret)'", sourceLocation: sourceLocation)
        }
    }
}
