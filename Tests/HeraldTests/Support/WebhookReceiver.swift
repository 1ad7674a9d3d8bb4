import Foundation
import HTTPTypes
import HeraldCore
import HeraldTestSupport
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle

/// An app backend's webhook endpoint, for the tests: a real HTTP server on a free port that records each
/// POST (headers and raw body) and answers what the test scripted (200 unless told otherwise).
final class WebhookReceiver: Sendable {
    struct Post: Sendable {
        let signature: String?
        let eventType: String?
        let eventId: String?
        let body: [UInt8]
        var json: JSONValue { (try? JSONValue.parse(body)) ?? .null }
    }

    typealias State = (posts: [Post], failFirst: [String: Int])
    private let state: Locked<State>
    private let task: Task<Void, any Error>
    let url: String

    private init(task: Task<Void, any Error>, port: Int, state: Locked<State>) {
        self.task = task
        self.url = "http://127.0.0.1:\(port)/hooks/herald"
        self.state = state
    }

    /// The posts so far, in arrival order.
    var posts: [Post] { state.withLock { $0.posts } }

    /// Answers 500 to the first `times` posts of events of `type`.
    func fail(type: String, times: Int) { state.withLock { $0.failFirst[type] = times } }

    static func start() async throws -> WebhookReceiver {
        let state = Locked<State>((posts: [], failFirst: [:]))
        let router = Router()
        router.post("/hooks/herald") { request, _ -> HTTPResponse.Status in
            let buffer = try await request.body.collect(upTo: 1 << 20)
            let post = Post(
                signature: request.headers[HTTPField.Name("Herald-Signature")!],
                eventType: request.headers[HTTPField.Name("Herald-Event")!],
                eventId: request.headers[HTTPField.Name("Herald-Event-Id")!],
                body: Array(buffer.readableBytesView))
            return state.withLock { state -> HTTPResponse.Status in
                state.posts.append(post)
                if let type = post.eventType, let left = state.failFirst[type], left > 0 {
                    state.failFirst[type] = left - 1
                    return .internalServerError
                }
                return .ok
            }
        }
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        var logger = Logger(label: "webhook.receiver")
        logger.logLevel = .critical
        let app = Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in continuation.yield(channel.localAddress?.port ?? 0) },
            logger: logger)
        let task = Task { try await app.runService() }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else { throw HarnessError("the webhook receiver did not start") }
        return WebhookReceiver(task: task, port: port, state: state)
    }

    func stop() async {
        task.cancel()
        _ = try? await task.value
    }
}
