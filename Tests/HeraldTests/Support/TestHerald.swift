import Foundation
import Herald
import HeraldCore
import HeraldStore
import HeraldTestSupport
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore

/// Builds the real server (routes, store, sweeper) around a fresh store and a manual clock.
enum TestHerald {
    static let t0 = Timestamp(milliseconds: 1_800_000_000_000)
    static let apps = [
        AppConfiguration(
            id: "shop",
            keys: [
                APIKey(key: "k-client", role: .client),
                APIKey(key: "k-server", role: .server),
                APIKey(key: "k-admin", role: .admin),
            ]),
        // A second app, for isolation: its admin key must see nothing of shop's.
        AppConfiguration(id: "blog", keys: [APIKey(key: "b-admin", role: .admin)]),
    ]

    struct Harness {
        let client: any TestClientProtocol
        let store: SQLRegistrationStore
        let clock: ManualClock
        let readiness: Readiness
        /// The server's message store (to look at what a route stored).
        let messages: SQLMessageStore
    }

    /// Runs `body` against a server on a fresh SQLite file (or memory), or a fresh PostgreSQL database,
    /// answering through the router or a live socket.
    static func with(
        file: Bool = true, database: PublishHarness.Database = .sqlite, setup: TestingSetup = .router,
        metrics: HeraldConfiguration.Metrics = .init(), apps: [AppConfiguration] = TestHerald.apps,
        writeQueueLimit: Int = WriteQueueLimit.default, pubsub: PubSubConfiguration = .init(), console: ConsoleConfiguration = .init(),
        http: HeraldConfiguration.HTTP = .init(host: "127.0.0.1", port: 0),
        _ body: @escaping @Sendable (Harness) async throws -> Void
    ) async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        switch database {
        case .sqlite:
            try await run(
                file ? .sqliteFile(path: scratch.path("h.sqlite")) : .sqliteMemory, setup: setup, metrics: metrics, apps: apps,
                writeQueueLimit: writeQueueLimit, pubsub: pubsub, console: console, http: http, body)
        case .postgres:
            try await PostgresTestDatabase.with { url in
                try await run(
                    url, setup: setup, metrics: metrics, apps: apps, writeQueueLimit: writeQueueLimit, pubsub: pubsub, console: console,
                    http: http, body)
            }
        }
    }

    private static func run(
        _ url: DatabaseURL, setup: TestingSetup, metrics: HeraldConfiguration.Metrics, apps: [AppConfiguration],
        writeQueueLimit: Int, pubsub settings: PubSubConfiguration, console: ConsoleConfiguration, http: HeraldConfiguration.HTTP,
        _ body: @escaping @Sendable (Harness) async throws -> Void
    ) async throws {
        let logger = Logger(label: "herald.tests")
        try await HeraldRuntime.withMigrated(url, logger: logger) { backend in
            let store = SQLRegistrationStore(backend: backend, writeQueueLimit: writeQueueLimit)
            let clock = ManualClock(t0)
            var configuration = HeraldConfiguration(http: http, database: url, apps: apps)
            configuration.sweeper.intervalSeconds = 0
            configuration.metrics = metrics
            configuration.pubsub = settings
            configuration.console = console
            let readiness = Readiness(backend: backend)
            let pubsub = PubSubParts(backend: backend)
            let messages = SQLMessageStore(backend: backend, feed: pubsub.signal)
            let app = HeraldServer.makeApplication(
                configuration: configuration, store: store, messages: messages,
                registry: SQLDeviceRegistry(backend: backend), templates: SQLPushTemplateStore(backend: backend), pubsub: pubsub,
                apps: try AppDirectory(apps: apps), clock: clock,
                readiness: readiness, logger: logger)
            try await app.test(setup) { client in
                try await body(Harness(client: client, store: store, clock: clock, readiness: readiness, messages: messages))
            }
        }
    }
}

extension TestClientProtocol {
    /// Sends a JSON body (or none) and returns status and parsed JSON answer.
    @discardableResult
    func call(_ method: HTTPRequest.Method, _ uri: String, json: String? = nil) async throws -> (
        status: HTTPResponse.Status, body: JSONValue, contentType: String?
    ) {
        try await execute(
            uri: uri, method: method, headers: json == nil ? [:] : [.contentType: "application/json"],
            body: json.map { ByteBuffer(string: $0) }
        ) { response in
            let bytes = Array(response.body.readableBytesView)
            let body = bytes.isEmpty ? JSONValue.null : try JSONValue.parse(bytes)
            return (response.status, body, response.headers[.contentType])
        }
    }
}

extension JSONValue {
    subscript(key: String) -> JSONValue? {
        if case .object(let object) = self { return object[key] }
        return nil
    }

    subscript(index: Int) -> JSONValue? {
        if case .array(let array) = self, array.indices.contains(index) { return array[index] }
        return nil
    }

    var code: Int64? {
        if case .integer(let code)? = self["code"] { return code }
        return nil
    }

    var keys: Set<String> {
        if case .object(let object) = self { return Set(object.keys) }
        return []
    }
}
