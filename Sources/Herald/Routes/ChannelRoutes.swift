import HeraldCore
import HeraldStore
import Hummingbird

/// Channel administration: delete a channel (server) and list channels with counts (admin).
struct ChannelRoutes {
    let store: any RegistrationStore
    let apps: AppDirectory
    let clock: any WallClock

    func add(to router: Router<some RequestContext>) {
        let path = "/{appId}/{apiKey}/messaging/channels"
        router.get(RouterPath(path)) { _, context in try await list(context) }
        router.delete(RouterPath(path + "/{channelName}")) { _, context in try await delete(context) }
    }

    func list(_ context: some RequestContext) async throws -> Response {
        let scope = try AppScope(context, apps: apps, requires: .admin)
        let channels = try await store.channels(app: scope.appId, now: clock.now)
        return JSONBody.response(
            .array(
                channels.map { channel in
                    .object(["name": .string(channel.name.rawValue), "registrations": .integer(Int64(channel.registrations))])
                }))
    }

    func delete(_ context: some RequestContext) async throws -> Response {
        let scope = try AppScope(context, apps: apps, requires: .server)
        let text = try AppScope.parameter("channelName", context)
        let name = try ChannelName(validating: text, property: "channelName")
        guard try await store.deleteChannel(app: scope.appId, name: name) else { throw HeraldFault.unknownChannel(text) }
        return JSONBody.response(.object(["result": .bool(true)]))
    }
}
