import CoreMetrics
import HeraldCore

/// Every metric Herald reports, named and labelled here and nowhere else, so a name or a label set
/// cannot drift between two call sites (Prometheus refuses one name with two label sets).
///
/// It reports through the swift-metrics factory it is given: the server passes one on its own Prometheus
/// registry (`GET /metrics`), tests pass their own registry, and `disabled` reports nothing. Labels hold
/// only bounded, non-secret values: route templates (never the path with its key or device id), methods,
/// statuses, providers, outcomes and APNs reason names.
public final class HeraldMetrics: Sendable {
    /// Reports nothing (tools and tests that do not look at metrics).
    public static let disabled = HeraldMetrics(factory: NOOPMetricsHandler.instance)

    /// Buckets for the timers (seconds): a request on the fast path takes about a millisecond.
    public static let durationBuckets: [Duration] = [
        .microseconds(500), .milliseconds(1), .microseconds(2500), .milliseconds(5), .milliseconds(10), .milliseconds(25),
        .milliseconds(50), .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1), .microseconds(2_500_000),
        .seconds(5), .seconds(10), .seconds(30),
    ]
    /// Buckets for group-commit batch sizes (inputs per transaction; the batchers take at most 256).
    public static let batchBuckets: [Double] = [1, 2, 4, 8, 16, 32, 64, 128, 256]

    /// The name of every metric, with its kind and what it means (the README's list comes from the same facts).
    public enum Name {
        public static let httpRequests = "herald_http_requests_total"
        public static let httpDuration = "herald_http_request_duration_seconds"
        public static let httpProtocolErrors = "herald_http_protocol_errors_total"
        public static let registrations = "herald_registrations_total"
        public static let launches = "herald_launches_total"
        public static let sweeps = "herald_sweeps_total"
        public static let sweepRemoved = "herald_sweep_removed_total"
        public static let sweepDuration = "herald_sweep_duration_seconds"
        public static let messagesFinished = "herald_messages_finished_total"
        public static let notifications = "herald_notifications_total"
        public static let deliveries = "herald_deliveries_total"
        public static let providerDuration = "herald_provider_request_duration_seconds"
        public static let inFlight = "herald_notifications_in_flight"
        public static let retries = "herald_retries_total"
        public static let tokensRemoved = "herald_tokens_removed_total"
        public static let tokensDeactivated = "herald_tokens_deactivated_total"
        public static let devicesDeactivated = "herald_devices_deactivated_total"
        public static let dbWriteDuration = "herald_db_write_duration_seconds"
        public static let batchSize = "herald_group_commit_batch_size"
        public static let writeQueueWaiting = "herald_write_queue_waiting"
        public static let writeQueueRefused = "herald_write_queue_refused_total"
        public static let fanOutsRunning = "herald_fanouts_running"
        public static let connectionsReplaced = "herald_provider_connections_replaced_total"
        public static let deviceCheckCalls = "herald_devicecheck_calls_total"
        public static let deviceCheckDuration = "herald_devicecheck_call_duration_seconds"
        public static let subscriptionsCreated = "herald_pubsub_subscriptions_created_total"
        public static let streamsOpen = "herald_pubsub_streams"
        public static let pubsubDelivered = "herald_pubsub_messages_delivered_total"
        public static let rtConnections = "herald_rt_connections"
        public static let rtSubscriptions = "herald_rt_subscriptions"
        public static let rtDisconnects = "herald_rt_disconnects_total"
        public static let rtRefused = "herald_rt_refused_total"
        public static let databasePrimary = "herald_database_primary"
        public static let databaseFailovers = "herald_database_failovers_total"
        public static let databaseWithoutPrimary = "herald_database_without_primary_seconds_total"

        /// Every name above (a test checks the exposition holds each).
        public static let all = [
            httpRequests, httpDuration, httpProtocolErrors, registrations, launches, sweeps, sweepRemoved, sweepDuration, messagesFinished,
            notifications, deliveries, providerDuration, inFlight, retries, tokensRemoved, tokensDeactivated, devicesDeactivated,
            dbWriteDuration, batchSize, writeQueueWaiting, writeQueueRefused, fanOutsRunning, connectionsReplaced, deviceCheckCalls,
            deviceCheckDuration,
            subscriptionsCreated, streamsOpen, pubsubDelivered, rtConnections, rtSubscriptions, rtDisconnects, rtRefused,
            databasePrimary, databaseFailovers, databaseWithoutPrimary,
        ]
    }

    /// How one notification ended at the provider.
    public typealias NotificationOutcome = SendOutcome

    /// The writes that go through group commit, and the fan-out checkpoint.
    public enum Write: String, Sendable, CaseIterable {
        case registrations, launches, checkpoint
    }

    /// What a sweep removed.
    public enum SweepKind: String, Sendable, CaseIterable {
        case registrations, history, messages, channels
        case liveActivities = "live_activities"
        case idempotencyKeys = "idempotency_keys"
        /// Rows of the delivery statistics: minutes folded into hours, hours past their retention.
        case deliveryStats = "delivery_stats"
    }

    let factory: any MetricsFactory
    private let registrationCounter: Counter
    private let launchCounter: Counter
    private let sweepTimer: Timer
    private let devicesDeactivatedCounter: Counter
    private let fanOuts: Meter
    private let sweepRemovedCounters: [SweepKind: Counter]
    private let writeTimers: [Write: Timer]
    private let batchRecorders: [Write: Recorder]
    private let failoverCounter: Counter
    private let withoutPrimaryCounter: FloatingPointCounter
    /// Handles with open-ended label values (routes, reasons, providers), made once per label set.
    let cache = MetricCache()

    public init(factory: any MetricsFactory) {
        self.factory = factory
        registrationCounter = Counter(label: Name.registrations, dimensions: [], factory: factory)
        launchCounter = Counter(label: Name.launches, dimensions: [], factory: factory)
        sweepTimer = Timer(label: Name.sweepDuration, dimensions: [], factory: factory)
        devicesDeactivatedCounter = Counter(label: Name.devicesDeactivated, dimensions: [], factory: factory)
        fanOuts = Meter(label: Name.fanOutsRunning, dimensions: [], factory: factory)
        sweepRemovedCounters = Dictionary(
            uniqueKeysWithValues: SweepKind.allCases.map {
                ($0, Counter(label: Name.sweepRemoved, dimensions: [("kind", $0.rawValue)], factory: factory))
            })
        failoverCounter = Counter(label: Name.databaseFailovers, dimensions: [], factory: factory)
        withoutPrimaryCounter = FloatingPointCounter(label: Name.databaseWithoutPrimary, dimensions: [], factory: factory)
        writeTimers = Dictionary(
            uniqueKeysWithValues: Write.allCases.map {
                ($0, Timer(label: Name.dbWriteDuration, dimensions: [("write", $0.rawValue)], factory: factory))
            })
        batchRecorders = Dictionary(
            uniqueKeysWithValues: Write.allCases.map {
                ($0, Recorder(label: Name.batchSize, dimensions: [("write", $0.rawValue)], aggregate: true, factory: factory))
            })
    }

    // MARK: HTTP

    /// One answered request; `route` is the matched template (`/{appId}/{apiKey}/devices`), never the path.
    public func request(method: String, route: String, status: Int, duration: Duration) {
        cache.counter(Name.httpRequests, [("method", method), ("route", route), ("status", String(status))], factory).increment()
        cache.timer(Name.httpDuration, [("method", method), ("route", route)], factory).recordNanoseconds(duration.nanoseconds)
    }

    /// A request Herald could not read as HTTP (a malformed head or body, a head too large, a body too
    /// late), answered 4xx and closed; `kind` is one of ProtocolFault's names.
    public func protocolError(kind: String) {
        cache.counter(Name.httpProtocolErrors, [("kind", kind)], factory).increment()
    }

    // MARK: Registry

    public func registered() { registrationCounter.increment() }
    public func launched() { launchCounter.increment() }
    /// An admin switched a device off.
    public func deviceDeactivated() { devicesDeactivatedCounter.increment() }

    // MARK: Sweeps

    /// One sweep: `trigger` is timer, admin or command.
    public func swept(trigger: String, removed: [SweepKind: Int], duration: Duration) {
        cache.counter(Name.sweeps, [("trigger", trigger)], factory).increment()
        for (kind, count) in removed where count > 0 { sweepRemovedCounters[kind]?.increment(by: count) }
        sweepTimer.recordNanoseconds(duration.nanoseconds)
    }

    // MARK: Messages and notifications

    /// A message reached a final status (published, failed, cancelled).
    public func messageFinished(status: String) {
        cache.counter(Name.messagesFinished, [("status", status)], factory).increment()
    }

    /// Connections a provider's client shut down for answering nothing for a whole request timeout (their
    /// sends were retried on new ones); `count` may be 0, which makes the series appear.
    public func connectionsReplaced(provider: String, count: Int) {
        cache.counter(Name.connectionsReplaced, [("provider", provider)], factory).increment(by: count)
    }

    public func retried(provider: String) { cache.counter(Name.retries, [("provider", provider)], factory).increment() }
    /// The provider said the token is gone (APNs 410): its registration is removed.
    public func tokenRemoved(provider: String) { cache.counter(Name.tokensRemoved, [("provider", provider)], factory).increment() }
    /// The provider said the token is wrong for the app: it is deactivated.
    public func tokenDeactivated(provider: String) {
        cache.counter(Name.tokensDeactivated, [("provider", provider)], factory).increment()
    }

    // MARK: Publish-subscribe

    /// How subscribers receive messages: by polling, on a stream (Server-Sent Events or WebSocket), or
    /// over Backendless RT (the SDKs' `subscribe`).
    public enum PubSubDelivery: String, Sendable, CaseIterable {
        case poll, stream, rt
    }

    // MARK: Backendless RT

    /// A Backendless RT connection (a socket.io client in an app's namespace) opened (+1) or closed (-1).
    public func rtConnections(_ change: Int) {
        let meter = cache.meter(Name.rtConnections, [], factory)
        if change > 0 { meter.increment(by: Double(change)) } else { meter.decrement(by: Double(-change)) }
    }

    /// RT subscriptions of a type (`PUB_SUB_MESSAGES`, …) started (+1) or stopped (-1).
    public func rtSubscriptions(type: String, _ change: Int) {
        let meter = cache.meter(Name.rtSubscriptions, [("type", type)], factory)
        if change > 0 { meter.increment(by: Double(change)) } else { meter.decrement(by: Double(-change)) }
    }

    /// An RT connection ended: `reason` is Engine.IO's or Socket.IO's (`transport close`, `ping timeout`, …).
    public func rtDisconnected(reason: String) { cache.counter(Name.rtDisconnects, [("reason", reason)], factory).increment() }

    /// A client's RT request that was refused: `what` is `connect`, `subscription` or `method`.
    public func rtRefused(_ what: String) { cache.counter(Name.rtRefused, [("what", what)], factory).increment() }

    public func subscriptionCreated() { cache.counter(Name.subscriptionsCreated, [], factory).increment() }
    /// A stream opened (+1) or closed (-1).
    public func streams(_ change: Int) {
        let meter = cache.meter(Name.streamsOpen, [], factory)
        if change > 0 { meter.increment(by: Double(change)) } else { meter.decrement(by: Double(-change)) }
    }
    public func pubsubDelivered(_ count: Int, via: PubSubDelivery) {
        guard count > 0 else { return }
        cache.counter(Name.pubsubDelivered, [("via", via.rawValue)], factory).increment(by: count)
    }

    public func fanOutStarted() { fanOuts.increment() }
    public func fanOutEnded() { fanOuts.decrement() }

    // MARK: DeviceCheck

    /// One call to Apple's DeviceCheck for the app's backend, retries included: `operation` is validate,
    /// query or update; `outcome` is ok or why it failed (badDeviceToken, badRequest, credentialsRefused,
    /// unavailable, client).
    public func deviceCheckCall(operation: String, outcome: String, duration: Duration) {
        cache.counter(Name.deviceCheckCalls, [("operation", operation), ("outcome", outcome)], factory).increment()
        cache.timer(Name.deviceCheckDuration, [("operation", operation)], factory).recordNanoseconds(duration.nanoseconds)
    }

    // MARK: Database

    /// The gauge and counter of one group-commit queue (`registrations` or `launches`).
    public func writeQueue(_ write: Write) -> WriteQueue {
        WriteQueue(
            waiting: cache.meter(Name.writeQueueWaiting, [("write", write.rawValue)], factory),
            refusedCounter: cache.counter(Name.writeQueueRefused, [("write", write.rawValue)], factory))
    }

    /// Writes waiting for their transaction, and those refused because too many waited (answered 503).
    public struct WriteQueue: Sendable {
        let waiting: Meter
        let refusedCounter: Counter
        public func waiting(_ count: Int) { waiting.set(count) }
        public func refused() { refusedCounter.increment() }
    }

    /// One write transaction of `count` inputs (group commit) that took `duration`.
    public func wrote(_ write: Write, count: Int, duration: Duration) {
        writeTimers[write]?.recordNanoseconds(duration.nanoseconds)
        if write != .checkpoint { batchRecorders[write]?.record(count) }
    }

    /// PostgreSQL with several hosts: 1 for the host Herald works on, 0 for the others (`host` is
    /// `host:port` from the database URL).
    public func databasePrimary(host: String, isPrimary: Bool) {
        cache.meter(Name.databasePrimary, [("host", host)], factory).set(isPrimary ? 1 : 0)
    }

    /// Herald moved to another PostgreSQL host than the one it last used.
    public func databaseFailover() { failoverCounter.increment() }

    /// A stretch without a usable PostgreSQL host ended after `duration`.
    public func databaseWithoutPrimary(_ duration: Duration) {
        withoutPrimaryCounter.increment(by: Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18)
    }
}
