import HeraldCore
import HeraldStore
import Hummingbird

/// Channel administration: delete a channel (server) and list channels with counts (admin).
struct ChannelRoutes {
    let store: any RegistrationStore
    let apps: AppDirectory
    let clock: any WallClock

    func add(to router: Router<HeraldRequestContext>) {
        let path = "/{appId}/{apiKey}/messaging/channels"
        router.requiring(.admin, apps: apps).get(RouterPath(path)) { request, context in try await list(request, context) }
        router.requiring(.server, apps: apps).delete(RouterPath(path + "/{channelName}")) { _, context in try await delete(context) }
    }

    /// Without `limit` or `cursor`: the bare array of the app's first `bareListLimit` channels, as
    /// existing callers read it. With either: `{"channels": […], "nextCursor": …}`, pages in byte order of
    /// names, the cursor being the last name of the page before.
    func list(_ request: Request, _ context: HeraldRequestContext) async throws -> Response {
        let appId = try context.appId()
        let query = try QueryParameters(request)
        guard query["limit"] != nil || query["cursor"] != nil else {
            let channels = try await store.channels(app: appId, after: nil, limit: Self.bareListLimit, now: clock.now)
            return JSONBody.response(.array(channels.map(Self.json)))
        }
        let limit = try Page.limit(query)
        var after: ChannelName?
        if let cursor = query["cursor"], !cursor.isEmpty {
            do {
                after = try ChannelName(validating: cursor, property: "cursor")
            } catch {
                throw HeraldFault.invalidParameter("cursor", "not a cursor this list gave")
            }
        }
        let channels = try await store.channels(app: appId, after: after, limit: limit + 1, now: clock.now)
        let shown = channels.prefix(limit)
        let next = channels.count > limit ? shown.last.map { JSONValue.string($0.name.rawValue) } : nil
        return JSONBody.response(.object(["channels": .array(shown.map(Self.json)), "nextCursor": next ?? .null]))
    }

    /// The most channels the bare array (no `limit` or `cursor`) answers; past it, page.
    static let bareListLimit = 1000

    static func json(_ channel: ChannelSummary) -> JSONValue {
        .object(["name": .string(channel.name.rawValue), "registrations": .integer(Int64(channel.registrations))])
    }

    func delete(_ context: HeraldRequestContext) async throws -> Response {
        let appId = try context.appId()
        let text = try AppScope.parameter("channelName", context)
        let name = try ChannelName(validating: text, property: "channelName")
        guard try await store.deleteChannel(app: appId, name: name) else { throw HeraldFault.unknownChannel(text) }
        return JSONBody.response(.object(["result": .bool(true)]))
    }
}
