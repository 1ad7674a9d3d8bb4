import HeraldCore

/// One message the demo published to one channel, and what Herald last said about it.
struct DemoPublication: Sendable {
    /// `GET …/messaging/{messageId}`, as far as the demo reads it.
    struct Status: Decodable, Sendable {
        struct Deliveries: Decodable, Sendable {
            let targeted: Int
            let sent: Int
            let failed: Int
            let pending: Int
            let tokensRemoved: Int
            let tokensDeactivated: Int
            /// By `PushProvider.platformKey` (`ios`, `android`, `web`): every provider's counts.
            let byPlatform: [String: Platform]

            /// The counts of the devices `provider` delivers to (zero if the status has none for it).
            func through(_ provider: PushProvider) -> Platform {
                byPlatform[provider.platformKey] ?? Platform(sent: 0, failed: 0, tokensRemoved: 0)
            }
        }

        struct Platform: Decodable, Sendable {
            let sent: Int
            let failed: Int
            let tokensRemoved: Int
        }

        let messageId: String
        let status: String
        let errorMessage: String?
        let deliveries: Deliveries
    }

    /// The part of a publish answer the demo reads.
    struct Published: Decodable {
        let messageId: String
        let status: String
    }

    let channel: String
    let messageId: String
    /// Devices the demo registered in the channel: what the fan-out should reach.
    let registered: Int
    /// Just before the publish request went out.
    let publishedAt: ContinuousClock.Instant
    /// The poll that first saw the message published.
    var finishedAt: ContinuousClock.Instant?
    var last: Status?

    var done: Int { last.map { $0.deliveries.sent + $0.deliveries.failed } ?? 0 }
    var fanOutTime: Duration? { finishedAt.map { $0 - publishedAt } }
}
