import Foundation
import Herald
import HeraldCore
import HeraldStore
import HeraldTestSupport
import Hummingbird
import HummingbirdTesting
import Logging
import Testing

@testable import HeraldStore

/// Liveness and readiness: `/health` answers while the process serves; `/ready` only while the database
/// answers, its schema is current and the instance is not draining (issue 11).
@Suite struct HealthTests {
    @Test(arguments: PublishHarness.Database.available)
    func healthAndReadinessAnswerWithoutAKey(_ database: PublishHarness.Database) async throws {
        try await TestHerald.with(database: database) { h in
            let health = try await h.client.call(.get, "/health")
            #expect(health.status == .ok && health.body == .object(["status": .string("ok")]))
            let ready = try await h.client.call(.get, "/ready")
            #expect(ready.status == .ok && ready.body == .object(["status": .string("ready")]))

            // Draining (a shutdown began): not ready, still alive.
            h.readiness.startDraining()
            let draining = try await h.client.call(.get, "/ready")
            #expect(draining.status == .serviceUnavailable && draining.body.code == 503)
            #expect(draining.body["message"] == .string("Not ready: Herald is shutting down"))
            #expect(try await h.client.call(.get, "/health").status == .ok)
        }
    }

    @Test func aSchemaWithPendingMigrationsIsNotReady() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let logger = Logger(label: "herald.tests")
        try await StoreFactory.withBackend(.sqliteFile(path: scratch.path("old.sqlite")), logger: logger) { backend in
            let older = Array(Schema.migrations.prefix { $0.name < "0011" })
            try await Migrator(backend: backend, migrations: older).migrate(logger: logger)
            let problem = try #require(await Readiness(backend: backend).problem())
            #expect(problem.contains("schema is not current") && problem.contains("0011_webhook_event_devices"))
            try await Migrator(backend: backend).migrate(logger: logger)
            #expect(await Readiness(backend: backend).problem() == nil)
        }
    }

    @Test(.enabled(if: PostgresTestDatabase.serverURL != nil || PostgresTestDatabase.isCI))
    func aDatabaseThatStopsAnsweringIsNotReady() async throws {
        try await PostgresTestDatabase.with { url in
            guard case .postgres(let location) = url else { return }
            try await StoreFactory.withBackend(url, logger: Logger(label: "herald.tests")) { backend in
                try await Migrator(backend: backend).migrate(logger: Logger(label: "herald.tests"))
                #expect(await Readiness(backend: backend).problem() == nil)
                // The database goes away under the running instance (its connections are terminated).
                try await PostgresTestDatabase.admin("DROP DATABASE IF EXISTS \(location.database) WITH (FORCE)")
                let started = ContinuousClock.now
                let problem = try #require(await Readiness(backend: backend).problem())
                #expect(problem.contains("database"))
                #expect(ContinuousClock.now - started < .seconds(4), "answered within the deadline")
            }
        }
    }

    @Test(.timeLimit(.minutes(1))) func sigtermDrainsBeforeTheServerStops() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let server = try HeraldProcess(
            ["serve", "--port", "0"], directory: scratch.url, environment: ["HERALD_HTTP_DRAIN_SECONDS": "2"])
        let base = try await server.waitUntilListening()
        #expect(try await HTTP.send("GET", base.appendingPathComponent("ready")).status == 200)
        let signalled = ContinuousClock.now
        kill(server.process.processIdentifier, SIGTERM)
        // During the drain: not ready, but still serving.
        try await Task.sleep(for: .milliseconds(500))
        let ready = try await HTTP.send("GET", base.appendingPathComponent("ready"))
        #expect(ready.status == 503 && ready.body.contains("shutting down"))
        #expect(try await HTTP.send("GET", base.appendingPathComponent("health")).status == 200)
        #expect(try await server.waitForExit(timeout: .seconds(20)) == 0)
        #expect(ContinuousClock.now - signalled >= .seconds(2), "the server stopped after the drain")
    }
}
