import HeraldCore
import HeraldDispatch
import HeraldStore
import Hummingbird

/// Push templates (issue 24): the admin's routes that manage them (a Herald extension, under the admin
/// prefix), the SDKs' download (`GET …/messaging/pushtemplates[/{deviceType}]`, client key) and a push
/// sent with one (`POST …/messaging/push/{templateName}`, server key).
///
/// `pushtemplates` and `push` share their segment with `{target}` (a channel to POST to, a message id to
/// GET): constant routes there would take requests away from the parameter routes, so `MessageRoutes`
/// hands those over, and this type only answers once the segment said it is a template route.
struct PushTemplateRoutes {
    static let segment = "pushtemplates"
    static let pushSegment = "push"
    /// The most templates an app may have.
    static let limit = SQLPushTemplateStore.defaultLimit

    let templates: any PushTemplateStore
    let messages: any MessageStore
    let apps: AppDirectory
    let clock: any WallClock
    let dispatcher: Dispatcher?
    /// The SDK blocks the binary registration answers, shared with it; dropped here when a template changes.
    var blockCache = TemplateBlocksCache()

    func add(to router: Router<HeraldRequestContext>) {
        let path = "/{appId}/{apiKey}/admin/pushtemplates"
        let admin = router.requiring(.admin, apps: apps)
        admin.get(RouterPath(path)) { _, context in try await list(context) }
        admin.put(RouterPath(path + "/{templateName}")) { request, context in try await put(request, context) }
        admin.get(RouterPath(path + "/{templateName}")) { _, context in try await read(context) }
        admin.delete(RouterPath(path + "/{templateName}")) { _, context in try await delete(context) }
    }

    /// The stored template as the admin routes answer it: its name and its body.
    static func json(_ template: PushTemplate) -> JSONValue {
        guard case .object(var fields) = template.body else { return template.body }
        fields["name"] = .string(template.name)
        return .object(fields)
    }

    func templateName(_ context: HeraldRequestContext) throws(HeraldFault) -> String {
        try AppScope.parameter("templateName", context)
    }

    func list(_ context: HeraldRequestContext) async throws -> Response {
        let all = try await templates.templates(app: try context.appId())
        return JSONBody.response(.object(["templates": .array(all.map(Self.json))]))
    }

    /// Creates (201) or replaces (200) one; answers it as stored.
    func put(_ request: Request, _ context: HeraldRequestContext) async throws -> Response {
        let template = try PushTemplate(name: try templateName(context), json: try await JSONBody.read(request))
        let created = try await templates.put(template, app: try context.appId(), limit: Self.limit, now: clock.now)
        blockCache.invalidate(app: try context.appId())
        return JSONBody.response(Self.json(template), status: created ? .created : .ok)
    }

    func read(_ context: HeraldRequestContext) async throws -> Response {
        let name = try templateName(context)
        guard let template = try await templates.template(app: try context.appId(), name: name) else {
            throw HeraldFault.unknownTemplate(name)
        }
        return JSONBody.response(Self.json(template))
    }

    func delete(_ context: HeraldRequestContext) async throws -> Response {
        let name = try templateName(context)
        guard try await templates.delete(app: try context.appId(), name: name) else { throw HeraldFault.unknownTemplate(name) }
        blockCache.invalidate(app: try context.appId())
        return JSONBody.response(.object(["result": .bool(true)]))
    }

    /// The SDKs' download, once a client key was checked: the app's templates as a map from name to the
    /// platform's block. No device type (the Swift SDK's call) is iOS; `osx` is too.
    func download(app: String, deviceType: String?) async throws -> Response {
        let os: DeviceOS
        switch deviceType?.lowercased() {
        case nil, "ios", "osx": os = .ios
        case "android": os = .android
        default: throw HeraldFault.invalidParameter("deviceType", "expected ios or android")
        }
        return JSONBody.response(.object(try await sdkBlocks(app: app, os: os)))
    }

    /// The app's templates as an SDK downloads them: name → the block for `os` (the download route, and
    /// the answer of the Java SDK's binary registration).
    func sdkBlocks(app: String, os: DeviceOS) async throws -> [String: JSONValue] {
        let all = try await templates.templates(app: app)
        return Dictionary(uniqueKeysWithValues: all.map { ($0.name, $0.sdkBlock(for: os)) })
    }

    /// Pushes with the app's template `name` and the values in `body` (`{"templateValues": {…}}`); returns the
    /// message's id. The push route (`MessageRoutes`, once a server key was checked; `id` and `idempotency` from
    /// its `Idempotency-Key`) and the SDK's binary `pushWithTemplate` both send so.
    func push(
        app: String, name: String, body: JSONValue?, id: String = MessageRoutes.newMessageID(), idempotency: IdempotencyRecord? = nil
    ) async throws -> String {
        guard let template = try await templates.template(app: app, name: name) else { throw HeraldFault.unknownTemplate(name) }
        return try await Self.send(
            template, body: body, app: app, messages: messages, clock: clock, dispatcher: dispatcher, id: id, idempotency: idempotency)
    }

    /// Stores a push with `template` and the values in `body` (as the push route reads them) and wakes the
    /// dispatcher; returns the message's id. The push route and the console's Templates page both send so.
    static func send(
        _ template: PushTemplate, body: JSONValue?, app: String, messages: any MessageStore, clock: any WallClock, dispatcher: Dispatcher?,
        id: String = MessageRoutes.newMessageID(), idempotency: IdempotencyRecord? = nil
    ) async throws -> String {
        let push = try TemplatePush(template: template, body: body)
        let channels = template.audience.channels
        let now = clock.now
        let message = StoredMessage(
            id: id, app: app,
            channel: channels.count == 1 ? channels[0] : .default, policy: .push, broadcast: push.broadcast,
            segment: template.audience.segment, contents: try push.contents(), templateName: template.name,
            audience: channels.count == 1 ? nil : channels, dueAt: now, createdAt: now)
        if let dispatcher {
            try await dispatcher.insertAndSend(message, now: now, idempotency: idempotency)
        } else {
            try await messages.insert(message, now: now, idempotency: idempotency)
        }
        return message.id
    }
}
