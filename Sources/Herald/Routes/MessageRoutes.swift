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

    func add(to router: Router<HeraldRequestContext>) {
        // One parameter name for the segment: POST names a channel, GET and DELETE a message id.
        let path = "/{appId}/{apiKey}/messaging"
        router.requiring(.server, apps: apps, denied: .publishDenied).post(RouterPath(path + "/{target}")) { request, context in
            try await publish(request, context)
        }
        // GET and DELETE first tell which route they are from the segment (a mistyped one is 404 whatever
        // the key), then authorise for it: these two check the key in the handler, after the shape.
        router.get(RouterPath(path + "/{target}")) { _, context in
            var context = context
            if try AppScope.parameter("target", context) == PushTemplateRoutes.segment {
                let caller = try AppScope.authorize(context, apps: apps, requires: .client)
                return try await templates.download(app: caller.appId, deviceType: nil)
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
                return try await templates.push(request, context, name: try AppScope.parameter("second", context))
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

    /// Stores the message durably, then wakes the dispatcher; answers `scheduled` (Backendless does too).
    func publish(_ request: Request, _ context: HeraldRequestContext) async throws -> Response {
        let appId = try context.appId()
        let channel = try ChannelName(validating: try AppScope.parameter("target", context), property: "channelName")
        let body = try await JSONBody.read(request)
        let now = clock.now
        let publish = try PublishRequest(json: body, now: now)
        let message = StoredMessage(
            id: Self.newMessageID(), app: appId, channel: channel,
            request: publish, now: now)
        try await messages.insert(message, now: now)
        if publish.schedule.publishAt == nil { dispatcher?.wake() }
        return Self.accepted(message.id)
    }

    /// The answer to a publish (and a push with a template): stored, to be sent, as Backendless says it.
    static func accepted(_ id: String) -> Response {
        JSONBody.response(
            .object(["messageId": .string(id), "status": .string(MessageStatus.scheduled.contractStatus), "errorMessage": .null]))
    }

    func status(_ context: HeraldRequestContext) async throws -> Response {
        let id = try Self.messageID(context)
        let appId = try context.appId()
        guard let message = try await messages.message(app: appId, id: id) else { throw HeraldFault.messageNotCancellable }
        return JSONBody.response(
            .object([
                "messageId": .string(message.id),
                "status": .string(message.status.contractStatus),
                "errorMessage": message.errorMessage.map(JSONValue.string) ?? .null,
                "deliveries": message.deliveries.json,
                "occurrences": .integer(message.occurrences),
                "nextOccurrenceAt": message.status == .scheduled ? message.dueAt.map { .integer($0.milliseconds) } ?? .null : .null,
                "skipped": .object(skipped(message, app: appId)),
                "templateName": message.templateName.map(JSONValue.string) ?? .null,
            ]))
    }

    /// The systems the message targets that the app has no push service settings for, each with why its
    /// devices are not sent to (they are not counted in `deliveries` either); empty when none.
    func skipped(_ message: StoredMessage, app: String) -> [String: JSONValue] {
        guard let dispatcher else { return [:] }
        var skipped: [String: JSONValue] = [:]
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
        let appId = try context.appId()
        guard try await messages.cancel(app: appId, id: id, now: clock.now) else { throw HeraldFault.messageNotCancellable }
        metrics.messageFinished(status: MessageStatus.cancelled.contractStatus)
        return JSONBody.response(.object(["messageId": .string(id), "status": .string(MessageStatus.cancelled.contractStatus)]))
    }

    /// `message:` and a lowercase UUID: a shape no channel can have (channel names may not start with
    /// `message:`), so GET and DELETE can tell a message id from a mistyped route.
    static func newMessageID() -> String { "message:\(UUID().uuidString.lowercased())" }

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
