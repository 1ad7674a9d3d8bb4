import HeraldAPNs
import HeraldCore
import HeraldDispatch
import HeraldStore

/// A Live Activity publish (`POST /{appId}/{apiKey}/messaging/{channel}/live-activity`, server key): one
/// ActivityKit event to the Live Activity tokens of the channel's iOS devices (or of the devices named in
/// `pushSinglecast`, or of those matching `segment`), stored and followed like any publish.
struct LiveActivityPublish {
    let messages: any MessageStore
    let store: any RegistrationStore
    let apps: AppDirectory
    let clock: any WallClock
    let dispatcher: Dispatcher?
    /// The app's APNs broadcast channels and their bindings (nil: no database to keep them in).
    let channels: BroadcastChannelStore?

    /// The route's last segment, after the channel.
    static let segment = "live-activity"
    /// The body's keys: the event's, and the audience's as a publish has them.
    static let bodyKeys = LiveActivityEvent.bodyKeys.union(["pushSinglecast", "segment"])

    /// Checks the body and the app's APNs block, stores the message (as `id`, with the publish's `idempotency`
    /// key) and starts it; returns its id.
    func publish(
        _ body: JSONValue, app: String, channel: ChannelName, id: String = MessageRoutes.newMessageID(),
        idempotency: IdempotencyRecord? = nil
    ) async throws -> String {
        guard let apns = apps.apns(app: app) else { throw HeraldFault.liveActivitiesNeedAPNs(app: app) }
        guard case .token = apns.authentication else { throw HeraldFault.liveActivitiesNeedTokenAuth(app: app) }
        let members = try JSONBody.object(body, allowed: Self.bodyKeys)
        let event = try LiveActivityEvent(json: members)
        let singlecast = try PublishRequest.singlecast(members["pushSinglecast"])
        let segment = try Segment.parse(members["segment"])
        let now = clock.now
        // A channel bound to an APNs broadcast channel: an update or end to the whole channel is one
        // broadcast; a start carries the channel's id so the started activities follow it.
        var target = event.target
        var inputPushChannel: String?
        if singlecast == nil, segment == nil, event.activityId == nil, let bound = try await channels?.bound(app: app, channel: channel) {
            if event.kind == .start {
                inputPushChannel = bound.channelId
            } else {
                target.broadcast = LiveActivityTarget.Broadcast(channelId: bound.channelId, storagePolicy: bound.storagePolicy)
            }
        }
        let payload = event.payload(timestamp: now, inputPushChannel: inputPushChannel)
        let limit = target.broadcast == nil ? LiveActivityEvent.payloadLimit : LiveActivityEvent.broadcastPayloadLimit
        if payload.count > limit { throw HeraldFault.tooLong(property: "payload", length: payload.count, limit: limit) }
        let content = APNsContent(
            payload: payload, pushType: APNsPushType.liveactivity.rawValue, priority: event.priority, expiration: nil, collapseId: nil)
        let message = StoredMessage(
            id: id, app: app, channel: channel, policy: .push, broadcast: .ios,
            singlecast: singlecast?.map(\.rawValue), segment: segment, contents: MessageContents(apns: content),
            liveActivity: target, dueAt: now, createdAt: now)
        if let dispatcher {
            try await dispatcher.insertAndSend(message, now: now, idempotency: idempotency)
        } else {
            try await messages.insert(message, now: now, idempotency: idempotency)
        }
        if event.kind == .end, let activityId = event.activityId {
            // Once the end is stored: the one activity's token is kept only as long as Apple shows the ended
            // activity. The publish is accepted whatever this does: failing it now would make a client publish
            // the end again, and the sweeper forgets the activity 12 hours after its start all the same.
            let dismissal = event.aps["dismissal-date"].flatMap { value -> Timestamp? in
                guard case .integer(let seconds) = value else { return nil }
                return Timestamp(milliseconds: Timestamp.milliseconds(seconds: seconds))
            }
            _ = try? await store.endActivity(
                app: app, activityId: activityId, attributesType: event.attributesType, now: now, dismissal: dismissal)
        }
        return message.id
    }
}
