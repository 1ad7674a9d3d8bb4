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
        router.requiring(.admin, apps: apps).get(RouterPath(path)) { _, context in try await list(context) }
        router.requiring(.server, apps: apps).delete(RouterPath(path + "/{channelName}")) { _, context in try await delete(context) }
    }

    func list(_ context: HeraldRequestContext) async throws -> Response {
        let appId = try context.appId()
        let channels = try await store.channels(app: appId, now: clock.now)
        return JSONBody.response(
            .array(
                channels.map { channel in
                    .object(["name": .string(channel.name.rawValue), "registrations": .integer(Int64(channel.registrations))])
                }))
    }

    func delete(_ context: HeraldRequestContext) async throws -> Response {
        let appId = try context.appId()
        let text = try AppScope.parameter("channelName", context)
        let name = try ChannelName(validating: text, property: "channelName")
        guard try await store.deleteChannel(app: appId, name: name) else { throw HeraldFault.unknownChannel(text) }
        return JSONBody.response(.object(["result": .bool(true)]))
    }
}
