import HeraldAPNs
import HeraldCore
import HeraldStore
import Hummingbird

/// The app's APNs broadcast channels (admin): made and deleted through Apple's channel management API,
/// kept in Herald's database, and bound to Herald channels so that a Live Activity update or end
/// published to the channel is one broadcast request.
struct LiveActivityChannelRoutes {
    let channels: BroadcastChannelStore
    let apps: AppDirectory
    let clock: any WallClock

    func add(to router: Router<HeraldRequestContext>) {
        let path = "/{appId}/{apiKey}/live-activities/channels"
        let admin = router.requiring(.admin, apps: apps)
        admin.post(RouterPath(path)) { request, context in try await create(request, context) }
        admin.get(RouterPath(path)) { _, context in try await list(context) }
        admin.put(RouterPath(path + "/{channelId}")) { request, context in try await bind(request, context) }
        admin.delete(RouterPath(path + "/{channelId}")) { _, context in try await delete(context) }
    }

    /// `{"storagePolicy": 0|1, "channel": "<Herald channel>"}` (both optional): Apple makes the channel.
    func create(_ request: Request, _ context: HeraldRequestContext) async throws -> Response {
        let body = try await JSONBody.readOptional(request) ?? .object([:])
        return JSONBody.response(try await create(body, app: try context.appId()).json)
    }

    func list(_ context: HeraldRequestContext) async throws -> Response {
        let found = try await channels.channels(app: try context.appId())
        return JSONBody.response(.object(["channels": .array(found.map(\.json))]))
    }

    /// `{"channel": "<Herald channel>"}` binds it (moving the binding from another APNs channel of the
    /// app); `{"channel": null}` unbinds it.
    func bind(_ request: Request, _ context: HeraldRequestContext) async throws -> Response {
        let app = try context.appId()
        let id = try AppScope.parameter("channelId", context)
        return JSONBody.response(try await bind(try await JSONBody.read(request), app: app, id: id).json)
    }

    func delete(_ context: HeraldRequestContext) async throws -> Response {
        try await delete(app: try context.appId(), id: try AppScope.parameter("channelId", context))
        return JSONBody.response(.object(["result": .bool(true)]))
    }

    // MARK: What the routes and the console's Live Activities page both run

    /// Checks a create body, has Apple make the channel and keeps it (bound as the body asks).
    func create(_ body: JSONValue, app: String) async throws -> BroadcastChannelRecord {
        let members = try JSONBody.object(body, allowed: ["storagePolicy", "channel"])
        let policy: APNsChannelStoragePolicy
        switch members["storagePolicy"] {
        case nil, .null: policy = .noMessageStored
        case .integer(let value)? where APNsChannelStoragePolicy(rawValue: Int(value)) != nil:
            policy = APNsChannelStoragePolicy(rawValue: Int(value))!
        case let other?: throw HeraldFault.invalidParameter("storagePolicy", "expected 0 or 1, got \(other.scalarText ?? other.typeName)")
        }
        let bound = try Self.channelName(members["channel"])
        let (client, bundle) = try management(app: app)
        let id: String
        do {
            id = try await client.create(bundleID: bundle, storagePolicy: policy)
        } catch {
            throw HeraldFault.broadcastChannelRefused(error.description)
        }
        let record = BroadcastChannelRecord(channelId: id, storagePolicy: policy.rawValue, boundChannel: bound, createdAt: clock.now)
        try await channels.insert(app: app, record)
        return record
    }

    /// Checks a bind body (`channel`: a name, or null to unbind) and binds; the channel as it now is.
    func bind(_ body: JSONValue, app: String, id: String) async throws -> BroadcastChannelRecord {
        let members = try JSONBody.object(body, allowed: ["channel"])
        guard members.keys.contains("channel") else { throw HeraldFault.missingParameter("channel") }
        let bound = try Self.channelName(members["channel"])
        guard try await channels.bind(app: app, id: id, to: bound), let record = try await channels.channel(app: app, id: id) else {
            throw HeraldFault.unknownBroadcastChannel
        }
        return record
    }

    /// Deletes the channel at Apple (one Apple no longer has is deleted here all the same), then here.
    func delete(app: String, id: String) async throws {
        guard try await channels.channel(app: app, id: id) != nil else { throw HeraldFault.unknownBroadcastChannel }
        let (client, bundle) = try management(app: app)
        do {
            try await client.delete(bundleID: bundle, channelID: id)
        } catch  where error.reason == .known(.channelNotRegistered) {
            // Gone at Apple already (deleted there, or the capability turned off): forget it here too.
        } catch {
            throw HeraldFault.broadcastChannelRefused(error.description)
        }
        _ = try await channels.delete(app: app, id: id)
    }

    /// Why the app cannot manage broadcast channels (5083, 5082, 5086), read from its configuration alone;
    /// nil when it can try. The console says so before anyone presses Create.
    func managementProblem(app: String) -> HeraldFault? {
        guard let apns = apps.apns(app: app) else { return HeraldFault.liveActivitiesNeedAPNs(app: app) }
        guard case .token = apns.authentication else { return HeraldFault.liveActivitiesNeedTokenAuth(app: app) }
        guard apns.channelClientConfiguration != nil else { return HeraldFault.broadcastChannelsNotConfigured(app: app) }
        return nil
    }

    /// The app's channel management client and bundle id, or why it has none.
    func management(app: String) throws -> (APNsChannelClient, String) {
        if let problem = managementProblem(app: app) { throw problem }
        guard let apns = apps.apns(app: app), let token = try apns.channelProviderToken(clock: clock),
            let configuration = apns.channelClientConfiguration
        else { throw HeraldFault.internalError }
        return (APNsChannelClient(configuration: configuration, providerToken: token), apns.topic)
    }

    static func channelName(_ value: JSONValue?) throws -> ChannelName? {
        switch value {
        case nil, .null: return nil
        case .string(let name)?: return try ChannelName(validating: name, property: "channel")
        case let other?: throw HeraldFault.invalidParameter("channel", "expected a channel name, got \(other.typeName)")
        }
    }
}

extension BroadcastChannelRecord {
    var json: JSONValue {
        .object([
            "channelId": .string(channelId), "storagePolicy": .integer(Int64(storagePolicy)),
            "channel": boundChannel.map { .string($0.rawValue) } ?? .null, "createdAt": .integer(createdAt.milliseconds),
        ])
    }
}
