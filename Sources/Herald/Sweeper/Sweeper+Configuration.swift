import HeraldCore
import HeraldMetrics
import HeraldStore
import Logging

extension Sweeper {
    /// The sweeper the configuration describes (`sweeper.*`, `history.*`, `messages.retentionDays`,
    /// `stats.*`), over these stores: the server's timer and `herald sweep` sweep alike.
    public init(
        configuration: HeraldConfiguration, store: any RegistrationStore, messages: any MessageStore, registry: any DeviceRegistryStore,
        clock: any WallClock, metrics: HeraldMetrics = .disabled, logger: Logger
    ) {
        self.init(
            store: store, clock: clock, batchSize: configuration.sweeper.batchSize,
            history: HistoryRetention(
                registry: registry, days: configuration.history.days, maxPerDevice: configuration.history.maxPerDevice),
            messages: MessageRetention(messages: messages, days: configuration.messageRetentionDays),
            idempotencyKeys: messages,
            stats: StatsRetention(messages: messages, minuteHours: configuration.stats.minuteHours, hourDays: configuration.stats.hourDays),
            emptyChannelDays: configuration.sweeper.emptyChannelDays, metrics: metrics, logger: logger)
    }
}
