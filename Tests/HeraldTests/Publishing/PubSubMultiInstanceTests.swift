import Foundation
import Herald
import HeraldCore
import HeraldDispatch
import HeraldStore
import HeraldTestSupport
import Hummingbird
import HummingbirdTesting
import Logging
import Testing

/// Two Herald servers on one PostgreSQL database (issue 24): a subscriber polling or streaming through
/// either receives every message published through either, once. Each server has its own connection
/// pool, hub and LISTEN connection; nothing passes between them but the database.
@Suite(.enabled(if: PostgresTestDatabase.serverURL != nil, "\(PostgresTestDatabase.skipMessage)"))
struct PubSubMultiInstanceTests {
    /// Runs `body` with clients of two servers sharing a fresh database.
    static func withTwoInstances(
        _ body: @escaping @Sendable (any TestClientProtocol, any TestClientProtocol) async throws -> Void
    ) async throws {
        try await PostgresTestDatabase.with { url in
            try await instance(url) { first in
                try await instance(url) { second in try await body(first, second) }
            }
        }
    }

    static func instance(
        _ url: DatabaseURL, apps: [AppConfiguration] = TestHerald.apps,
        _ body: @escaping @Sendable (any TestClientProtocol) async throws -> Void
    ) async throws {
        let logger = Logger(label: "herald.tests")
        try await HeraldRuntime.withMigrated(url, logger: logger) { backend in
            var configuration = HeraldConfiguration(http: .init(host: "127.0.0.1", port: 0), database: url, apps: apps)
            configuration.sweeper.intervalSeconds = 0
            configuration.dispatcher.pollIntervalSeconds = 0.05
            let pubsub = PubSubParts(backend: backend)
            let app = HeraldServer.makeApplication(
                configuration: configuration, store: SQLRegistrationStore(backend: backend),
                messages: SQLMessageStore(backend: backend, feed: pubsub.signal), registry: SQLDeviceRegistry(backend: backend),
                templates: SQLPushTemplateStore(backend: backend), pubsub: pubsub, apps: try AppDirectory(apps: apps),
                logger: logger)
            try await app.test(.live) { client in try await body(client) }
        }
    }

    static func messageId(_ answer: (status: HTTPResponse.Status, body: JSONValue, contentType: String?)) throws -> String {
        guard case .string(let id)? = answer.body["messageId"] else { throw HarnessError("no messageId in \(answer.body)") }
        return id
    }

    @Test func pollingThroughEitherInstanceHandsEachMessageOutOnce() async throws {
        try await Self.withTwoInstances { a, b in
            let subscribed = try await a.call(.post, "/shop/k-client/messaging/chat/subscribe")
            guard case .string(let id)? = subscribed.body["subscriptionId"] else { throw HarnessError("\(subscribed.body)") }
            var published = Set<String>()
            for index in 0..<30 {
                let via = index % 2 == 0 ? a : b
                published.insert(
                    try Self.messageId(
                        try await via.call(
                            .post, "/shop/k-server/messaging/chat", json: #"{"message": "m\#(index)", "publishPolicy": "PUBSUB"}"#)))
            }
            // Both instances poll at once, over and over, until everything has come.
            let received = Locked<[String]>([])
            try await withThrowingTaskGroup(of: Void.self) { group in
                for client in [a, b, a, b] {
                    group.addTask {
                        let deadline = ContinuousClock.now + .seconds(10)
                        while received.withLock({ $0.count }) < 30, ContinuousClock.now < deadline {
                            let answer = try await client.call(.get, "/shop/k-client/messaging/chat/\(id)")
                            guard case .array(let messages)? = answer.body["messages"] else { throw HarnessError("\(answer.body)") }
                            let ids = messages.compactMap { message -> String? in
                                if case .string(let id)? = message["messageId"] { return id }
                                return nil
                            }
                            received.withLock { $0.append(contentsOf: ids) }
                        }
                    }
                }
                try await group.waitForAll()
            }
            let all = received.withLock { $0 }
            #expect(all.count == 30, "each message once: \(all.count) received")
            #expect(Set(all) == published)
        }
    }

    @Test func aStreamOnOneInstanceGetsWhatIsPublishedThroughTheOther() async throws {
        try await Self.withTwoInstances { a, b in
            let subscribed = try await a.call(.post, "/shop/k-client/messaging/chat/subscribe")
            guard case .string(let id)? = subscribed.body["subscriptionId"] else { throw HarnessError("\(subscribed.body)") }
            let stream = try SSEClient(port: try #require(b.port), path: "/shop/k-client/messaging/chat/\(id)/stream")
            #expect(try await stream.head() == 200)
            var published: [String] = []
            for index in 0..<10 {
                published.append(
                    try Self.messageId(
                        try await a.call(
                            .post, "/shop/k-server/messaging/chat", json: #"{"message": "m\#(index)", "publishPolicy": "BOTH"}"#)))
            }
            let events = try await stream.events(10)
            let ids = try events.map { event -> String in
                guard case .string(let id)? = try JSONValue.parse(Array(event.data.utf8))["messageId"] else {
                    throw HarnessError(event.data)
                }
                return id
            }
            #expect(ids == published, "in order, once each")
            #expect(try await stream.anyEvent(within: .milliseconds(1500)) == false, "and nothing twice")
        }
    }
}
