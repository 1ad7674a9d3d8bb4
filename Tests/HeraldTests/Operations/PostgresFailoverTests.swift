import Foundation
import Herald
import HeraldCore
import HeraldStore
import HeraldTestSupport
import Logging
import SQLKit
import Testing

/// A PostgreSQL failover under Herald's store, on a real pair: `scripts/with-postgres.sh --standby` starts a
/// primary and a synchronous streaming standby (made with `pg_basebackup -R`) and sets
/// `HERALD_TEST_POSTGRES_PAIR_URL` (both hosts) and `HERALD_TEST_POSTGRES_PAIR_CTL` (failover, rejoin, demote).
/// Each test leaves a working pair behind (the roles may be swapped), so they run one after another.
/// Without the pair they are skipped; `.ci/run` runs them in a step of their own, as a failover would
/// disturb the other PostgreSQL tests.
@Suite(.serialized, .enabled(if: PostgresPair.url != nil))
struct PostgresFailoverTests {
    static var pairURL: String? { PostgresPair.url }
    static var pairCtl: String? { ProcessInfo.processInfo.environment["HERALD_TEST_POSTGRES_PAIR_CTL"] }
    struct NotPostgres: Error {}
    let logger = Logger(label: "herald.tests.failover")

    /// What a writer saw: the registrations acknowledged, the refusals, and anything else (a failure).
    final class Tally: Sendable {
        struct State {
            var acknowledged: [String] = []
            var unavailable = 0
            var other: [String] = []
            var lastAcknowledged: ContinuousClock.Instant?
        }
        let state = Locked(State())
    }

    /// `pair.sh COMMAND`; fails the test if it fails.
    static func pair(_ command: String) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try #require(pairCtl))
        process.arguments = [command]
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "pair.sh \(command) failed; see pair.log beside it")
    }

    /// A new empty database on the pair (created on the primary, replicated to the standby) and its URL.
    func database() async throws -> DatabaseURL {
        try await Self.createDatabase(prefix: "herald_failover_").url
    }

    /// Creates an empty database named `prefix` + a random suffix on the pair's primary; its URL (both
    /// hosts, a small pool) and its name.
    static func createDatabase(prefix: String) async throws -> (url: DatabaseURL, name: String) {
        let url = try #require(pairURL)
        guard case .postgres(var location) = try DatabaseURL(parsing: url) else { throw NotPostgres() }
        let name = prefix + UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(12).lowercased()
        var primary = location
        primary.hosts = [PostgresLocation.Endpoint(host: "127.0.0.1", port: try primaryPort())]
        try await PostgresTestDatabase.admin("CREATE DATABASE \(name)", on: primary)
        location.database = name
        location.poolSize = 8
        return (.postgres(location), name)
    }

    /// Registers device after device (8 writers) until `stop`, tallying what each got.
    func write(_ store: SQLRegistrationStore, _ tally: Tally, until stop: Locked<Bool>) async {
        await withTaskGroup(of: Void.self) { group in
            for writer in 0..<8 {
                group.addTask {
                    var index = 0
                    while !stop.withLock({ $0 }) {
                        let id = "w\(writer)-\(index)"
                        index += 1
                        do {
                            let request = RegistrationRequest(
                                deviceId: try DeviceID(validating: id),
                                deviceToken: try DeviceToken(validating: String(format: "%064x", writer * 1_000_000 + index), os: .ios),
                                os: .ios, osVersion: nil, channels: [try ChannelName(validating: "news")], expiration: nil)
                            _ = try await store.register(app: "shop", request, now: SystemClock().now)
                            tally.state.withLock {
                                $0.acknowledged.append(id)
                                $0.lastAcknowledged = .now
                            }
                        } catch is StoreUnavailable {
                            tally.state.withLock { $0.unavailable += 1 }
                            try? await Task.sleep(for: .milliseconds(50))
                        } catch {
                            tally.state.withLock { $0.other.append("\(error)") }
                        }
                    }
                }
            }
        }
    }

    /// The primary stopped with `-m immediate` and the standby promoted while eight writers register:
    /// every write answers or is refused as unavailable (503), never another error; Herald writes again
    /// within 10 s of the promotion; every acknowledged registration is on the new primary; the LISTEN
    /// connection moves there; a publish's idempotency key survives, so its retry stores nothing; the metrics
    /// say which host is primary and count one failover.
    @Test func aFailoverLosesNoAcknowledgedRegistrationAndWritesResumeWithinTenSeconds() async throws {
        try await PostgresPair.exclusively {
            let url = try await database()
            let exporter = MetricsExporter()
            try await HeraldRuntime.withMigrated(url, logger: logger, metrics: exporter.metrics) { backend in
                let store = SQLRegistrationStore(backend: backend)
                let heard = Locked<[String]>([])
                let listener = Task {
                    await backend.listen("herald_failover_test", listening: {}) { payload in heard.withLock { $0.append(payload) } }
                }
                defer { listener.cancel() }
                let before = try Self.primaryPort()
                // A publish with an idempotency key, acknowledged before the failover: its retry after it must
                // find the key on the new primary and store nothing.
                let messages = SQLMessageStore(backend: backend, clock: .caller)
                let now = SystemClock().now
                func message(_ id: String) throws -> StoredMessage {
                    StoredMessage(
                        id: id, app: "shop", channel: try ChannelName(validating: "news"), policy: .push, broadcast: [.ios],
                        contents: MessageContents(
                            apns: APNsContent(
                                payload: Array(#"{"aps":{"alert":"hi"}}"#.utf8), pushType: "alert", priority: 10, expiration: nil,
                                collapseId: nil)),
                        dueAt: now.adding(milliseconds: 3_600_000), createdAt: now)
                }
                func record(_ id: String) -> IdempotencyRecord {
                    IdempotencyRecord(
                        app: "shop", key: "order-42", requestHash: "same-request", messageId: id, status: 200,
                        body: #"{"messageId":"\#(id)"}"#, createdAt: now)
                }
                try await messages.insert(try message("message:first"), now: now, idempotency: record("message:first"))
                let tally = Tally()
                let stop = Locked(false)
                let writers = Task { await write(store, tally, until: stop) }
                try await Task.sleep(for: .seconds(1))
                try Self.pair("failover")
                let promoted = ContinuousClock.now
                // Writes resume on the new primary: wait for one acknowledged after the promotion.
                var resumed: Duration?
                while ContinuousClock.now - promoted < .seconds(15) {
                    if let last = tally.state.withLock({ $0.lastAcknowledged }), last > promoted {
                        resumed = last - promoted
                        break
                    }
                    try await Task.sleep(for: .milliseconds(50))
                }
                try await Task.sleep(for: .milliseconds(500))
                stop.withLock { $0 = true }
                await writers.value
                let seen = tally.state.withLock { $0 }
                #expect(seen.other.isEmpty, "only 503s during the switch: \(seen.other.prefix(3))")
                let took = try #require(resumed, "no write succeeded within 15 s of the promotion")
                #expect(took < .seconds(10), "writes resumed \(took) after the promotion")
                #expect(seen.acknowledged.count > 100)
                // Every acknowledged registration is on the new primary.
                let stored = try await backend.read { db in
                    try await db.raw("SELECT device_id FROM devices WHERE app_id = 'shop'").all().map {
                        try $0.decode(column: "device_id", as: String.self)
                    }
                }
                let missing = Set(seen.acknowledged).subtracting(stored)
                #expect(missing.isEmpty, "\(missing.count) acknowledged registrations lost, e.g. \(missing.prefix(3))")
                #expect(try Self.primaryPort() != before)
                // NOTIFY reaches the listener on the new primary.
                var delivered = false
                for attempt in 0..<50 where !delivered {
                    _ = try await backend.write { db in
                        try await db.raw("SELECT pg_notify('herald_failover_test', \(bind: "after-\(attempt)"))").run()
                    }
                    try await Task.sleep(for: .milliseconds(200))
                    delivered = heard.withLock { $0.contains { $0.hasPrefix("after-") } }
                }
                #expect(delivered, "LISTEN moved to the new primary")
                // The publish retried with the same key: the key is there, the first message is, the retry is not.
                await #expect(throws: IdempotencyKeyTaken.self) {
                    try await messages.insert(try message("message:retry"), now: now, idempotency: record("message:retry"))
                }
                #expect(try await messages.idempotencyRecord(app: "shop", key: "order-42", now: now)?.messageId == "message:first")
                #expect(try await messages.message(app: "shop", id: "message:first") != nil)
                #expect(try await messages.message(app: "shop", id: "message:retry") == nil)
                let exposition = Exposition.parse(exporter.exposition())
                #expect(exposition["herald_database_failovers_total"] == 1)
                #expect(exposition["herald_database_primary{host=\"127.0.0.1:\(try Self.primaryPort())\"}"] == 1)
                #expect(exposition["herald_database_primary{host=\"127.0.0.1:\(before)\"}"] == 0)
                #expect((exposition["herald_database_without_primary_seconds_total"] ?? 0) > 0)
            }
            try Self.pair("rejoin")
        }
    }

    /// With the old primary back as a standby and listed first, a new backend uses the host that is
    /// the primary, as libpq's `target_session_attrs=read-write` does.
    @Test func theStandbyListedFirstIsPassedOver() async throws {
        try await PostgresPair.exclusively {
            guard case .postgres(let pair) = try DatabaseURL(parsing: try #require(Self.pairURL)) else { return }
            if try Self.primaryPort() == pair.hosts[0].port {
                try Self.pair("failover")
                try Self.pair("rejoin")
            }
            let url = try await database()
            try await HeraldRuntime.withMigrated(url, logger: logger) { backend in
                let port = try await backend.read { db in
                    try await db.raw("SELECT inet_server_port() AS port, pg_is_in_recovery() AS standby").first()
                }
                #expect(try port?.decode(column: "standby", as: Bool.self) == false)
                #expect(try port?.decode(column: "port", as: Int.self) == Self.primaryPort())
            }
        }
    }

    /// A primary whose sessions turn read-only (as a demoted one's are) answers writes with SQLSTATE
    /// 25006: Herald answers 503 (never 500) and gives the host up until it is writable again, then goes on.
    @Test func aReadOnlyPrimaryAnswers503UntilItIsWritableAgain() async throws {
        try await PostgresPair.exclusively {
            let url = try await database()
            try await HeraldRuntime.withMigrated(url, logger: logger) { backend in
                let store = SQLRegistrationStore(backend: backend)
                let tally = Tally()
                let stop = Locked(false)
                let writers = Task { await write(store, tally, until: stop) }
                try await Task.sleep(for: .milliseconds(500))
                try Self.pair("demote")
                try await Task.sleep(for: .seconds(2))
                let during = tally.state.withLock { $0 }
                try Self.pair("undemote")
                let back = ContinuousClock.now
                var resumed = false
                while !resumed, ContinuousClock.now - back < .seconds(10) {
                    try await Task.sleep(for: .milliseconds(100))
                    resumed = tally.state.withLock { ($0.lastAcknowledged ?? back) > back }
                }
                stop.withLock { $0 = true }
                await writers.value
                let seen = tally.state.withLock { $0 }
                #expect(during.unavailable > 0, "writes were refused as unavailable while read-only")
                #expect(seen.other.isEmpty, "only 503s while read-only: \(seen.other.prefix(3))")
                #expect(resumed, "writes resumed once the host was writable")
            }
        }
    }

    static func primaryPort() throws -> Int {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try #require(pairCtl))
        process.arguments = ["primary"]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        process.waitUntilExit()
        let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        return try #require(Int(text.trimmingCharacters(in: .whitespacesAndNewlines)))
    }
}

/// The pair `scripts/with-postgres.sh --standby` starts, if it did.
enum PostgresPair {
    static var url: String? { ProcessInfo.processInfo.environment["HERALD_TEST_POSTGRES_PAIR_URL"] }

    /// Runs `body` while no other test uses the pair: a failover under one suite would disturb another's
    /// test (`.serialized` orders the tests of one suite only, and suites run side by side).
    static func exclusively<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        await lock.acquire()
        do {
            let value = try await body()
            await lock.release()
            return value
        } catch {
            await lock.release()
            throw error
        }
    }

    static let lock = Turn()

    /// One holder at a time, the others waiting in order.
    actor Turn {
        private var held = false
        private var waiting: [CheckedContinuation<Void, Never>] = []

        func acquire() async {
            guard held else {
                held = true
                return
            }
            await withCheckedContinuation { waiting.append($0) }
        }

        func release() {
            if waiting.isEmpty { held = false } else { waiting.removeFirst().resume() }
        }
    }
}
