import HeraldCore

/// A published message as stored: what to send, to whom, when, and how far the fan-out got.
public struct StoredMessage: Sendable, Equatable {
    /// `message:<uuid>`, what the publisher gets back.
    public var id: String
    public var app: String
    public var channel: ChannelName
    public var publisherId: String?
    public var policy: PublishPolicy
    public var broadcast: PushBroadcast
    public var singlecast: [String]?
    /// Only the targeted devices that match it (app version, locale, model, last seen).
    public var segment: Segment?
    /// What each provider receives; nil when the policy does not push.
    public var contents: MessageContents?
    /// What the channel's subscribers get (`PUBSUB` and `BOTH`); nil for a `PUSH` message.
    public var pubsub: PubSubContent?
    /// The push template it was sent with (`POST …/messaging/push/{name}`), if any.
    public var templateName: String?
    /// A template's audience when it is not one channel: devices in any of these channels (each once),
    /// every device of the app when empty. Nil: the devices of `channel`.
    public var audience: [ChannelName]?
    /// A Live Activity publish: the activity tokens it goes to instead of the devices' own tokens.
    public var liveActivity: LiveActivityTarget?
    public var schedule: PublishSchedule
    public var status: MessageStatus
    public var errorMessage: String?
    /// When the next (or current) occurrence fires; nil once finished.
    public var dueAt: Timestamp?
    /// Occurrences finished so far.
    public var occurrences: Int64
    public var deliveries: DeliveryCounts
    public var createdAt: Timestamp

    public init(
        id: String, app: String, channel: ChannelName, publisherId: String? = nil, policy: PublishPolicy = .both,
        broadcast: PushBroadcast = .all, singlecast: [String]? = nil, segment: Segment? = nil, contents: MessageContents?,
        pubsub: PubSubContent? = nil, templateName: String? = nil, audience: [ChannelName]? = nil,
        liveActivity: LiveActivityTarget? = nil, schedule: PublishSchedule = PublishSchedule(),
        status: MessageStatus = .scheduled, errorMessage: String? = nil,
        dueAt: Timestamp?, occurrences: Int64 = 0, deliveries: DeliveryCounts = DeliveryCounts(),
        createdAt: Timestamp
    ) {
        self.id = id
        self.app = app
        self.channel = channel
        self.publisherId = publisherId
        self.policy = policy
        self.broadcast = broadcast
        self.singlecast = singlecast
        self.segment = segment
        self.contents = contents
        self.pubsub = pubsub
        self.templateName = templateName
        self.audience = audience
        self.liveActivity = liveActivity
        self.schedule = schedule
        self.status = status
        self.errorMessage = errorMessage
        self.dueAt = dueAt
        self.occurrences = occurrences
        self.deliveries = deliveries
        self.createdAt = createdAt
    }

    /// A new message from a validated publish request: due at `publishAt`, or now.
    public init(id: String, app: String, channel: ChannelName, request: PublishRequest, now: Timestamp) {
        self.init(
            id: id, app: app, channel: channel, publisherId: request.publisherId, policy: request.policy,
            broadcast: request.broadcast, singlecast: request.singlecast?.map(\.rawValue), segment: request.segment,
            contents: request.contents,
            pubsub: request.policy == .push ? nil : PubSubContent(data: request.message, headers: request.headers),
            schedule: request.schedule, dueAt: request.schedule.publishAt ?? now, createdAt: now)
    }
}

/// A message's delivery counts, summed over its occurrences. `targeted` is always the sum of the rest.
public struct DeliveryCounts: Sendable, Equatable {
    /// Accepted by the push service.
    public var sent: Int64
    /// Not delivered: refused by the service for the device, retries used up, or cut off by a failed message.
    public var failed: Int64
    /// Handed to the fan-out and not finished yet (0 unless a dispatcher is running the message).
    public var pending: Int64
    /// Devices deleted (with their registrations) because the service said the token is no longer valid.
    public var tokensRemoved: Int64
    /// Devices deactivated because the service refused their token.
    public var tokensDeactivated: Int64
    /// The finished counts split by the service that sent them (a provider with nothing is absent).
    /// Counts recorded before Herald kept them per provider were given one by migration 0017.
    public var byProvider: [PushProvider: ProviderCounts]

    public init(
        sent: Int64 = 0, failed: Int64 = 0, pending: Int64 = 0, tokensRemoved: Int64 = 0, tokensDeactivated: Int64 = 0,
        byProvider: [PushProvider: ProviderCounts] = [:]
    ) {
        self.sent = sent
        self.failed = failed
        self.pending = pending
        self.tokensRemoved = tokensRemoved
        self.tokensDeactivated = tokensDeactivated
        self.byProvider = byProvider
    }

    public var targeted: Int64 { sent + failed + pending }

    /// One provider's finished counts (zero when it sent nothing).
    public subscript(provider: PushProvider) -> ProviderCounts { byProvider[provider] ?? ProviderCounts() }
}

/// One provider's finished counts in a message's status (`deliveries.byPlatform`, under the name of
/// the platform it serves). Pending sends are counted in the totals only.
public struct ProviderCounts: Sendable, Equatable {
    public var sent: Int64
    public var failed: Int64
    public var tokensRemoved: Int64
    public var tokensDeactivated: Int64

    public init(sent: Int64 = 0, failed: Int64 = 0, tokensRemoved: Int64 = 0, tokensDeactivated: Int64 = 0) {
        self.sent = sent
        self.failed = failed
        self.tokensRemoved = tokensRemoved
        self.tokensDeactivated = tokensDeactivated
    }

    public var isZero: Bool { self == ProviderCounts() }

    public static func + (lhs: ProviderCounts, rhs: ProviderCounts) -> ProviderCounts {
        ProviderCounts(
            sent: lhs.sent + rhs.sent, failed: lhs.failed + rhs.failed, tokensRemoved: lhs.tokensRemoved + rhs.tokensRemoved,
            tokensDeactivated: lhs.tokensDeactivated + rhs.tokensDeactivated)
    }
}

extension DeliveryCounts {
    /// The counts as a message's status answers them and the `message.finished` event carries them:
    /// the totals, and the finished ones per platform: one key per provider, named for the platform it
    /// serves (`PushProvider.platformKey`), every provider always present.
    public var json: JSONValue {
        .object([
            "targeted": .integer(targeted), "sent": .integer(sent), "failed": .integer(failed), "pending": .integer(pending),
            "tokensRemoved": .integer(tokensRemoved), "tokensDeactivated": .integer(tokensDeactivated),
            "byPlatform": .object(Dictionary(uniqueKeysWithValues: PushProvider.allCases.map { ($0.platformKey, self[$0].json) })),
        ])
    }
}

extension ProviderCounts {
    public var json: JSONValue {
        .object([
            "sent": .integer(sent), "failed": .integer(failed), "tokensRemoved": .integer(tokensRemoved),
            "tokensDeactivated": .integer(tokensDeactivated),
        ])
    }
}
