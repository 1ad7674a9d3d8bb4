import Foundation
import HeraldCore
import HeraldDispatch
import HeraldMetrics
import HeraldStore
import Hummingbird

/// Publishing, message status and cancel, as in the contract's "Publishing" section. Every route needs
/// a `server` key.
struct MessageRoutes {
    let messages: any MessageStore
    let templates: PushTemplateRoutes
    let pubsub: PubSubRoutes
    let apps: AppDirectory
    let clock: any WallClock
    let dispatcher: Dispatcher?
    let metrics: HeraldMetrics
    let liveActivities: LiveActivityPublish

    func add(to router: Router<HeraldRequestContext>) {
        // One parameter name for the segment: POST names a channel, GET and DELETE a message id.
        let path = "/{appId}/{apiKey}/messaging"
        router.requiring(.server, apps: apps, denied: .publishDenied).post(RouterPath(path + "/{target}")) { request, context in
            try await publish(request, context)
        }
        // GET and DELETE first tell which route they are from the segment (a mistyped one is 404 whatever
        // the key), then authorise for it: these two check the key in the handler, after the shape.
        router.get(RouterPath(path + "/{target}")) { request, context in
            var context = context
            if try AppScope.parameter("target", context) == PushTemplateRoutes.segment {
                let caller = try AppScope.authorize(context, apps: apps, requires: .client)
                return try await templates.download(app: caller.appId, deviceType: nil)
            }
            if try AppScope.parameter("target", context) == Self.listingSegment {
                context.caller = try AppScope.authorize(context, apps: apps, requires: .server, denied: .publishDenied)
                return try await list(request, context)
            }
            _ = try Self.messageID(context)
            context.caller = try AppScope.authorize(context, apps: apps, requires: .server, denied: .publishDenied)
            return try await status(context)
        }
        // Two segments. GET: `pushtemplates/{deviceType}` (the SDKs' download), else `{channel}/{subscriptionId}`
        // (a poll). POST: `push/{templateName}`, else `{channel}/subscribe`.
        router.get(RouterPath(path + "/{target}/{second}")) { _, context in
            var context = context
            if try AppScope.parameter("target", context) == PushTemplateRoutes.segment {
                let caller = try AppScope.authorize(context, apps: apps, requires: .client)
                return try await templates.download(app: caller.appId, deviceType: try AppScope.parameter("second", context))
            }
            context.caller = try AppScope.authorize(context, apps: apps, requires: .client)
            return try await pubsub.poll(context)
        }
        router.post(RouterPath(path + "/{target}/{second}")) { request, context in
            var context = context
            if try AppScope.parameter("target", context) == PushTemplateRoutes.pushSegment {
                context.caller = try AppScope.authorize(context, apps: apps, requires: .server, denied: .publishDenied)
                let name = try AppScope.parameter("second", context)
                let app = try context.appId()
                let body = try await JSONBody.collect(request)
                return try await idempotent.answer(request, context, body: body) { id, idempotency in
                    _ = try await templates.push(
                        app: app, name: name, body: try JSONBody.parseOptional(body), id: id, idempotency: idempotency)
                }
            }
            if try AppScope.parameter("second", context) == LiveActivityPublish.segment {
                context.caller = try AppScope.authorize(context, apps: apps, requires: .server, denied: .publishDenied)
                let channel = try ChannelName(validating: try AppScope.parameter("target", context), property: "channelName")
                let app = try context.appId()
                let body = try await JSONBody.collect(request)
                return try await idempotent.answer(request, context, body: body) { id, idempotency in
                    _ = try await liveActivities.publish(
                        try JSONBody.parse(body), app: app, channel: channel, id: id, idempotency: idempotency)
                }
            }
            guard try AppScope.parameter("second", context) == PubSubRoutes.subscribeSegment else { throw HeraldFault.noSuchRoute }
            context.caller = try AppScope.authorize(context, apps: apps, requires: .client)
            return try await pubsub.subscribe(request, context)
        }
        router.delete(RouterPath(path + "/{target}")) { _, context in
            var context = context
            _ = try Self.messageID(context)
            context.caller = try AppScope.authorize(context, apps: apps, requires: .server, denied: .publishDenied)
            return try await cancel(context)
        }
    }

    /// The routes' `Idempotency-Key`, kept in the message store.
    var idempotent: IdempotentPublish { IdempotentPublish(messages: messages, clock: clock) }

    /// Stores the message durably, then wakes the dispatcher; answers `scheduled` (Backendless does too).
    func publish(_ request: Request, _ context: HeraldRequestContext) async throws -> Response {
        let appId = try context.appId()
        let channel = try ChannelName(validating: try AppScope.parameter("target", context), property: "channelName")
        let body = try await JSONBody.collect(request)
        return try await idempotent.answer(request, context, body: body) { id, idempotency in
            _ = try await Self.publish(
                try JSONBody.parse(body), app: appId, channel: channel, messages: messages, clock: clock, dispatcher: dispatcher, id: id,
                idempotency: idempotency)
        }
    }

    /// Checks a publish's body and stores the message durably, then wakes the dispatcher when it is due
    /// now; returns its id. (The publish route, and the console's test push to one device.)
    /// `channels`, when it names more than one, is the console's audience of several channels: the devices
    /// of any of them, each once (as a template's audience), pushed only, since subscribers follow one channel.
    /// `id` is the message's; `idempotency`, the publish's key, written with the message (`IdempotentPublish`).
    static func publish(
        _ body: JSONValue, app: String, channel: ChannelName, channels: [ChannelName]? = nil, messages: any MessageStore,
        clock: any WallClock, dispatcher: Dispatcher?, id: String = newMessageID(), idempotency: IdempotencyRecord? = nil
    ) async throws -> String {
        let now = clock.now
        let publish = try PublishRequest(json: body, now: now)
        var message = StoredMessage(id: id, app: app, channel: channel, request: publish, now: now)
        if let channels, channels.count > 1, publish.singlecast == nil {
            guard publish.policy == .push else {
                throw HeraldFault.invalidParameter(
                    "publishPolicy", "a message to several channels is pushed only (PUSH): subscribers follow one channel")
            }
            message.audience = channels
        }
        if publish.schedule.publishAt == nil, let dispatcher {
            // Due now: stored with its first slice leased to this instance, which starts sending at once.
            try await dispatcher.insertAndSend(message, now: now, idempotency: idempotency)
        } else {
            try await messages.insert(message, now: now, idempotency: idempotency)
        }
        return message.id
    }

    /// The answer to a publish (and a push with a template): stored, to be sent, as Backendless says it.
    static func accepted(_ id: String) -> Response {
        JSONBody.response(acceptedJSON(id))
    }

    /// `accepted`'s body as sent, for an idempotency key to keep.
    static func acceptedBody(_ id: String) -> String {
        String(decoding: (try? JSONEncoder.herald.encode(acceptedJSON(id))) ?? Data("null".utf8), as: UTF8.self)
    }

    static func acceptedJSON(_ id: String) -> JSONValue {
        .object(["messageId": .string(id), "status": .string(MessageStatus.scheduled.contractStatus), "errorMessage": .null])
    }

    func status(_ context: HeraldRequestContext) async throws -> Response {
        let id = try Self.messageID(context)
        let appId = try context.appId()
        return JSONBody.response(.object(statusFields(try await message(app: appId, id: id), app: appId)))
    }

    /// The app's message with this id; 5040 when there is none.
    func message(app: String, id: String) async throws -> StoredMessage {
        guard let message = try await messages.message(app: app, id: id) else { throw HeraldFault.messageNotCancellable }
        return message
    }

    /// A message's status as GET …/messaging/{messageId} answers it.
    func statusFields(_ message: StoredMessage, app: String) -> [String: JSONValue] {
        [
            "messageId": .string(message.id),
            "status": .string(message.status.contractStatus),
            "errorMessage": message.errorMessage.map(JSONValue.string) ?? .null,
            "deliveries": message.deliveries.json,
            "occurrences": .integer(message.occurrences),
            "nextOccurrenceAt": message.status == .scheduled ? message.dueAt.map { .integer($0.milliseconds) } ?? .null : .null,
            "skipped": .object(skipped(message, app: app)),
            "templateName": message.templateName.map(JSONValue.string) ?? .null,
        ]
    }

    static let listingSegment = "messages"

    /// The app's messages, newest first, a page at a time (`?status=&channel=&limit=&cursor=`): each as its
    /// status answers it, with its channel, when it was published and whether it is being sent now.
    func list(_ request: Request, _ context: HeraldRequestContext) async throws -> Response {
        let appId = try context.appId()
        let query = try QueryParameters(request)
        let filter = try Self.filter(query)
        let limit = try Page.limit(query)
        let cursor = try Self.cursor(query)
        let page = try await messages.messages(app: appId, filter: filter, after: cursor, limit: limit)
        let items = page.messages.map { message -> JSONValue in
            var fields = statusFields(message, app: appId)
            fields["channel"] = .string(message.channel.rawValue)
            fields["createdAt"] = .integer(message.createdAt.milliseconds)
            fields["running"] = .bool(message.status == .running)
            return .object(fields)
        }
        return JSONBody.response(
            .object(["messages": .array(items), "nextCursor": page.nextCursor.map { .string($0.description) } ?? .null]))
    }

    /// `?cursor=` of the message listing: a `nextCursor` it gave (nil when absent or empty).
    static func cursor(_ query: QueryParameters) throws(HeraldFault) -> MessageCursor? {
        guard let text = query["cursor"], !text.isEmpty else { return nil }
        guard let cursor = MessageCursor(text) else { throw .invalidParameter("cursor", "not a cursor this list gave") }
        return cursor
    }

    /// `?status=` (scheduled, which includes running, running, published, failed, cancelled) and `?channel=`.
    static func filter(_ query: QueryParameters) throws(HeraldFault) -> MessageFilter {
        var filter = MessageFilter()
        if let text = query["status"], !text.isEmpty {
            switch text {
            case "scheduled": filter.statuses = [.scheduled, .running]
            case "running": filter.statuses = [.running]
            case "published": filter.statuses = [.published]
            case "failed": filter.statuses = [.failed]
            case "cancelled": filter.statuses = [.cancelled]
            default: throw .invalidParameter("status", "expected scheduled, running, published, failed or cancelled")
            }
        }
        if let text = query["channel"], !text.isEmpty { filter.channel = try ChannelName(validating: text, property: "channel") }
        return filter
    }

    /// The systems the message targets that it is not pushed to, each with why its devices are not sent
    /// to (they are not counted in `deliveries` either): the app has no push service settings for them,
    /// or the message has nothing to show there (an object message to Apple devices); empty when none.
    func skipped(_ message: StoredMessage, app: String) -> [String: JSONValue] {
        var skipped: [String: JSONValue] = [:]
        if let reason = message.contents?.apnsSkipped {
            for os in PushProvider.apns.systems where message.broadcast.includes(os) {
                skipped[os.rawValue] = .string("not sent: \(reason)")
            }
        }
        guard let dispatcher else { return skipped }
        for provider in PushProvider.allCases where !dispatcher.isConfigured(provider, for: app) {
            for os in provider.systems where message.broadcast.includes(os) {
                skipped[os.rawValue] = .string(
                    "not sent: the app has no \(provider.displayName) settings (apps[].\(provider.rawValue) in the configuration)")
            }
        }
        return skipped
    }

    func cancel(_ context: HeraldRequestContext) async throws -> Response {
        let id = try Self.messageID(context)
        try await cancel(app: try context.appId(), id: id)
        return JSONBody.response(.object(["messageId": .string(id), "status": .string(MessageStatus.cancelled.contractStatus)]))
    }

    /// Cancels a message that has not finished; 5040 when there is no such message or it has.
    func cancel(app: String, id: String) async throws {
        guard try await messages.cancel(app: app, id: id, now: clock.now) else { throw HeraldFault.messageNotCancellable }
        metrics.messageFinished(status: MessageStatus.cancelled.contractStatus)
    }

    /// `message:` and a lowercase UUID: a shape no channel can have (channel names may not start with
    /// `message:`), so GET and DELETE can tell a message id from a mistyped route.
    static func newMessageID() -> String { "message:" + UUID().lowercasedText }

    /// The `{target}` of GET and DELETE. Anything not shaped like a message id (`…/messaging/registrationz`,
    /// `…/messaging/registrations` without a device) is a mistyped route: 404 "No such route", before
    /// the key is looked at, as for any other path Herald does not serve.
    static func messageID(_ context: HeraldRequestContext) throws(HeraldFault) -> String {
        let id = try AppScope.parameter("target", context)
        guard id.hasPrefix("message:"), UUID(uuidString: String(id.dropFirst("message:".count))) != nil else {
            throw .noSuchRoute
        }
        return id
    }
}
