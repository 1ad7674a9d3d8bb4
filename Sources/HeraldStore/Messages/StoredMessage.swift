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
    /// What APNs receives; nil when the policy does not push.
    public var contents: MessageContents?
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
        schedule: PublishSchedule = PublishSchedule(), status: MessageStatus = .scheduled, errorMessage: String? = nil,
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
            schedule: request.schedule, dueAt: request.schedule.publishAt ?? now, createdAt: now)
    }
}

/// A message's delivery counts, summed over its occurrences. `targeted` is always the sum of the rest.
public struct DeliveryCounts: Sendable, Equatable {
    /// Accepted by the push service (APNs or FCM).
    public var sent: Int64
    /// Not delivered: refused by the service for the device, retries used up, or cut off by a failed message.
    public var failed: Int64
    /// Handed to the fan-out and not finished yet (0 unless a dispatcher is running the message).
    public var pending: Int64
    /// Devices deleted (with their registrations) because the service said the token is no longer valid
    /// (APNs 410, FCM UNREGISTERED).
    public var tokensRemoved: Int64
    /// Devices deactivated because the service refused their token (APNs BadDeviceToken,
    /// DeviceTokenNotForTopic; FCM INVALID_ARGUMENT about the token, SENDER_ID_MISMATCH).
    public var tokensDeactivated: Int64
    /// The part of the finished counts that went to ANDROID devices (through FCM). The rest went to
    /// Apple devices: see `ios`.
    public var android: PlatformCounts

    public init(
        sent: Int64 = 0, failed: Int64 = 0, pending: Int64 = 0, tokensRemoved: Int64 = 0, tokensDeactivated: Int64 = 0,
        android: PlatformCounts = PlatformCounts()
    ) {
        self.sent = sent
        self.failed = failed
        self.pending = pending
        self.tokensRemoved = tokensRemoved
        self.tokensDeactivated = tokensDeactivated
        self.android = android
    }

    public var targeted: Int64 { sent + failed + pending }

    /// The finished counts of Apple devices (IOS and OSX, through APNs): the totals less Android's. Only
    /// these two platforms are ever sent to, so the two add up to the totals.
    public var ios: PlatformCounts {
        PlatformCounts(
            sent: sent - android.sent, failed: failed - android.failed, tokensRemoved: tokensRemoved - android.tokensRemoved,
            tokensDeactivated: tokensDeactivated - android.tokensDeactivated)
    }
}

/// One platform's finished counts in a message's status (`deliveries.byPlatform`). Pending sends are
/// counted in the totals only.
public struct PlatformCounts: Sendable, Equatable {
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
}

extension DeliveryCounts {
    /// The counts as a message's status answers them and the `message.finished` event carries them:
    /// the totals, and the finished ones per platform (`byPlatform.ios`, `byPlatform.android`).
    public var json: JSONValue {
        .object([
            "targeted": .integer(targeted), "sent": .integer(sent), "failed": .integer(failed), "pending": .integer(pending),
            "tokensRemoved": .integer(tokensRemoved), "tokensDeactivated": .integer(tokensDeactivated),
            "byPlatform": .object(["ios": ios.json, "android": android.json]),
        ])
    }
}

extension PlatformCounts {
    public var json: JSONValue {
        .object([
            "sent": .integer(sent), "failed": .integer(failed), "tokensRemoved": .integer(tokensRemoved),
            "tokensDeactivated": .integer(tokensDeactivated),
        ])
    }
}
