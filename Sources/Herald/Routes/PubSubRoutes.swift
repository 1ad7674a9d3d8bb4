import Foundation
import HTTPTypes
import HeraldCore
import HeraldMetrics
import HeraldStore
import Hummingbird
import NIOCore
import ServiceLifecycle

/// Publish-subscribe (issue 24), with any key of the app: subscribe to a channel
/// (`POST …/messaging/{channel}/subscribe`), poll a subscription (`GET …/messaging/{channel}/{subscriptionId}`),
/// and, beyond Backendless, stream it as Server-Sent Events (`GET …/messaging/{channel}/{subscriptionId}/stream`).
///
/// The first two share their shape with other two-segment routes, so `MessageRoutes` hands them over
/// once the segments said which they are.
struct PubSubRoutes {
    static let subscribeSegment = "subscribe"
    /// The most feed rows one poll reads.
    static let pollLimit = 1000

    let store: any PubSubStore
    let hub: PubSubHub?
    let apps: AppDirectory
    let clock: any WallClock
    let configuration: PubSubConfiguration
    let metrics: HeraldMetrics

    func add(to router: Router<HeraldRequestContext>) {
        router.requiring(.client, apps: apps).get(RouterPath("/{appId}/{apiKey}/messaging/{target}/{second}/stream")) { request, context in
            try await stream(request, context)
        }
    }

    func channel(_ context: some RequestContext) throws(HeraldFault) -> ChannelName {
        try ChannelName(validating: try AppScope.parameter("target", context), property: "channelName")
    }

    func subscriptionId(_ context: some RequestContext) throws(HeraldFault) -> String {
        let id = try AppScope.parameter("second", context)
        try Limits.check("subscriptionId", id, limit: 64)
        return id
    }

    /// `{"subscriberId"?, "selector"?, "subtopic"?}` (the body may be left out) → `{"subscriptionId"}`.
    func subscribe(_ request: Request, _ context: HeraldRequestContext) async throws -> Response {
        let app = try context.appId()
        let channel = try channel(context)
        var fields: [String: JSONValue] = [:]
        switch try await JSONBody.readOptional(request) {
        case nil, .null?: break
        case .object(let object)?: fields = object
        case let other?: throw HeraldFault.invalidParameter("body", "expected a JSON object, got \(other.typeName)")
        }
        let subscriberId = try RegistrationRequest.optionalString(fields, "subscriberId")
        if let subscriberId { try Limits.check("subscriberId", subscriberId, limit: Limits.publisherId) }
        var selector: MessageSelector?
        if let text = try RegistrationRequest.optionalString(fields, "selector"), !text.trimmingCharacters(in: .whitespaces).isEmpty {
            do {
                selector = try MessageSelector(parsing: text)
            } catch {
                throw HeraldFault.invalidParameter("selector", error.description)
            }
        }
        let subscription = try await store.subscribe(
            app: app, channel: channel, subscriberId: subscriberId, selector: selector, now: clock.now, policy: configuration.policy)
        metrics.subscriptionCreated()
        return JSONBody.response(.object(["subscriptionId": .string(subscription.id)]))
    }

    /// The subscription's messages since its last poll: `{"messages": [...]}`, always with the array.
    func poll(_ context: HeraldRequestContext) async throws -> Response {
        let messages = try await poll(app: try context.appId(), channel: try channel(context), id: try subscriptionId(context))
        return JSONBody.response(.object(["messages": .array(messages.map(Self.json))]))
    }

    /// The subscription's messages since its last poll (the REST poll and the SDK's binary `pollMessages`).
    func poll(app: String, channel: ChannelName, id: String) async throws -> [FeedMessage] {
        try Limits.check("subscriptionId", id, limit: 64)
        guard
            let messages = try await store.poll(
                app: app, channel: channel, id: id, now: clock.now, policy: configuration.policy, limit: Self.pollLimit)
        else { throw HeraldFault.unknownSubscription }
        metrics.pubsubDelivered(messages.count, via: .poll)
        return messages
    }

    /// A message as subscribers get it: Backendless's fields (`publishedAt`, and `timestamp` as its Java
    /// and Swift SDKs name it), headers as text.
    static func json(_ message: FeedMessage) -> JSONValue {
        .object([
            "messageId": .string(message.messageId), "data": message.content.data,
            "publishedAt": .integer(message.publishedAt.milliseconds),
            "timestamp": .integer(message.publishedAt.milliseconds), "publisherId": message.publisherId.map(JSONValue.string) ?? .null,
            "headers": .object(message.content.headers.mapValues { .string(headerText($0)) }),
        ])
    }

    /// A header's value as text: a scalar as it reads, structure as its JSON.
    static func headerText(_ value: JSONValue) -> String { value.scalarText ?? SortedJSON.text(value) }

    /// A stream opened on the hub: the subscription, where it starts, and what it is fed.
    struct OpenedStream {
        let subscription: Subscription
        let id: Int
        let start: Int64
        let events: AsyncStream<StreamEvent>
    }

    /// Opens the stream of the route's subscription from its position, or from `resume` (an event id it
    /// was sent: `Last-Event-ID`, or the `lastEventId` query parameter where a client cannot set headers).
    func open(_ request: Request, _ context: some RequestContext, app: String) async throws -> OpenedStream {
        let channel = try channel(context)
        let id = try subscriptionId(context)
        guard let hub else { throw HeraldFault.streamsUnavailable }
        var resume: Int64?
        let header = request.headers[values: HTTPField.Name("Last-Event-ID")!].first
        if let text = header ?? request.uri.queryParameters.get("lastEventId"), !text.isEmpty {
            guard let position = Int64(text.trimmingCharacters(in: .whitespaces)), position >= 0 else {
                throw HeraldFault.invalidParameter(header == nil ? "lastEventId" : "Last-Event-ID", "expected an event id this stream sent")
            }
            resume = position
        }
        guard
            let subscription = try await store.subscription(
                app: app, channel: channel, id: id, now: clock.now, policy: configuration.policy)
        else { throw HeraldFault.unknownSubscription }
        let start = resume ?? subscription.position
        guard let (stream, events) = hub.open(subscription, from: start) else { throw HeraldFault.streamsUnavailable }
        return OpenedStream(subscription: subscription, id: stream, start: start, events: events)
    }

    /// Keeps the subscription alive, and its position at what was written.
    func record(_ opened: OpenedStream, _ written: Int64) async {
        try? await store.advance(id: opened.subscription.id, to: written, now: clock.now)
    }

    /// The subscription's messages as Server-Sent Events, from its position or the event id it resumes
    /// from, each event's id its feed position; a comment every heartbeat. The subscription's position
    /// follows what was written (recorded at each heartbeat and at the end).
    func stream(_ request: Request, _ context: HeraldRequestContext) async throws -> Response {
        let opened = try await open(request, context, app: try context.appId())
        guard let hub else { throw HeraldFault.streamsUnavailable }
        let heartbeat = ByteBuffer(string: ": heartbeat\n\n")
        var headers = HTTPFields()
        headers[.contentType] = "text/event-stream; charset=utf-8"
        headers[.cacheControl] = "no-store"
        headers[HTTPField.Name("X-Accel-Buffering")!] = "no"
        return Response(
            status: .ok, headers: headers,
            body: ResponseBody { writer in
                var written = opened.start
                do {
                    try await writer.write(ByteBuffer(string: "retry: 1000\n\n"))
                    // The HTTP server waits for its requests when it shuts down: a stream ends then.
                    try await withGracefulShutdownHandler {
                        for await event in opened.events {
                            switch event {
                            case .message(let position, let event):
                                try await writer.write(event.serverSentEvent)
                                written = position
                            case .heartbeat:
                                try await writer.write(heartbeat)
                                await record(opened, written)
                            }
                        }
                    } onGracefulShutdown: {
                        hub.finish(opened.subscription, id: opened.id)
                    }
                    await record(opened, written)
                    try await writer.finish(nil)
                } catch {
                    // The client went away: what it was written is recorded.
                    await record(opened, written)
                    throw error
                }
            })
    }

    /// A message encoded for streams, once for all of them: the JSON object (the message's fields and
    /// `id`, its feed position) as one WebSocket text frame's payload, and the same JSON as a Server-Sent
    /// Event (`id`, `event: message`, `data`) in one buffer that the JSON is a slice of.
    /// With `rt`, also the message as Backendless RT's listeners get it (`RTMessage.json`).
    static func event(_ message: FeedMessage, rt: Bool = false) -> StreamEncoding {
        guard case .object(var fields) = json(message) else { preconditionFailure("a message is a JSON object") }
        fields["id"] = .integer(message.position)
        var buffer = ByteBuffer()
        buffer.writeString("id: \(message.position)\nevent: message\ndata: ")
        let offset = buffer.writerIndex
        let length = buffer.writeString(SortedJSON.text(JSONValue.object(fields)))
        buffer.writeString("\n\n")
        return StreamEncoding(
            serverSentEvent: buffer, json: buffer.getSlice(at: offset, length: length)!,
            rt: rt ? ByteBuffer(string: SortedJSON.text(RTMessage.json(message))) : nil)
    }
}

/// One message as streams send it (see `PubSubRoutes.event`).
struct StreamEncoding: Sendable, Equatable {
    let serverSentEvent: ByteBuffer
    let json: ByteBuffer
    /// The JSON Backendless RT sends as a `SUB_RES`'s `data`, when the channel has RT subscribers.
    let rt: ByteBuffer?
}
