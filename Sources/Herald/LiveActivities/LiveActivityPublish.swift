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

    /// The route's last segment, after the channel.
    static let segment = "live-activity"
    /// The body's keys: the event's, and the audience's as a publish has them.
    static let bodyKeys = LiveActivityEvent.bodyKeys.union(["pushSinglecast", "segment"])

    /// Checks the body and the app's APNs block, stores the message and starts it; returns its id.
    func publish(_ body: JSONValue, app: String, channel: ChannelName) async throws -> String {
        guard let apns = apps.apns(app: app) else { throw HeraldFault.liveActivitiesNeedAPNs(app: app) }
        guard case .token = apns.authentication else { throw HeraldFault.liveActivitiesNeedTokenAuth(app: app) }
        let members = try LiveActivityTokenRoutes.object(body, allowed: Self.bodyKeys)
        let event = try LiveActivityEvent(json: members)
        let singlecast = try PublishRequest.singlecast(members["pushSinglecast"])
        let segment = try Segment.parse(members["segment"])
        let now = clock.now
        let content = APNsContent(
            payload: event.payload(timestamp: now, inputPushChannel: nil), pushType: APNsPushType.liveactivity.rawValue,
            priority: event.priority, expiration: nil, collapseId: nil)
        let message = StoredMessage(
            id: MessageRoutes.newMessageID(), app: app, channel: channel, policy: .push, broadcast: .ios,
            singlecast: singlecast?.map(\.rawValue), segment: segment, contents: MessageContents(apns: content),
            liveActivity: event.target, dueAt: now, createdAt: now)
        if event.kind == .end, let activityId = event.activityId {
            // The one activity's token is kept only as long as Apple shows the ended activity.
            let dismissal = event.aps["dismissal-date"].flatMap { value -> Timestamp? in
                guard case .integer(let seconds) = value else { return nil }
                return Timestamp(milliseconds: Timestamp.milliseconds(seconds: seconds))
            }
            _ = try await store.endActivity(
                app: app, activityId: activityId, attributesType: event.attributesType, now: now, dismissal: dismissal)
        }
        if let dispatcher {
            try await dispatcher.insertAndSend(message, now: now)
        } else {
            try await messages.insert(message, now: now)
        }
        return message.id
    }
}
