import HeraldCore
import HeraldDispatch
import HeraldMetrics
import HeraldSocketIO
import HeraldStore
import HeraldWebhooks
import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOHTTP1
import ServiceLifecycle

/// What publish-subscribe needs of the store: the subscriptions and feeds, the signal the message store
/// fires when a feed grows (pass the same one to `SQLMessageStore(feed:)`), and the backend to LISTEN on.
public struct PubSubParts: Sendable {
    public let store: any PubSubStore
    public let signal: FeedSignal
    public let backend: (any SQLBackend)?

    public init(backend: any SQLBackend) {
        store = SQLPubSubStore(backend: backend)
        signal = FeedSignal()
        self.backend = backend
    }
}

/// Builds the HTTP application from its parts. Everything it needs is passed in, so tests assemble
/// the same server the binary runs, with their own store, clock and port 0.
public enum HeraldServer {
    static func makeRouter(
        store: any RegistrationStore, messages: any MessageStore, registry: any DeviceRegistryStore,
        templates: any PushTemplateStore, pubsub: PubSubRoutes, apps: AppDirectory, clock: any WallClock, sweeper: Sweeper,
        dispatcher: Dispatcher?,
        readiness: Readiness, metrics: HeraldMetrics,
        metricsRoute: MetricsRoutes?, deviceCheck: DeviceCheckClients, cors: CORSPolicy = CORSPolicy(apps: []),
        console: ConsoleRoutes? = nil, http: HeraldConfiguration.HTTP = HeraldConfiguration.HTTP(), rt: RTRoutes? = nil,
        broadcastChannels: BroadcastChannelStore? = nil, logger: Logger = Logger(label: "herald")
    ) -> Router<HeraldRequestContext> {
        let router = Router(context: HeraldRequestContext.self)
        router.add(middleware: RequestMetricsMiddleware(metrics: metrics))
        // Outside the fault middleware: an error's answer carries the CORS headers too.
        router.add(middleware: CORSMiddleware(policy: cors))
        let routeMethods = RouteMethods()
        router.add(middleware: FaultMiddleware(routeMethods: routeMethods))
        HealthRoutes(readiness: readiness).add(to: router)
        OpenAPIRoutes().add(to: router)
        metricsRoute?.add(to: router)
        let appInfo = AppInfoRoutes(apps: apps, http: http)
        appInfo.add(to: router)
        let registrationRoutes = RegistrationRoutes(store: store, apps: apps, clock: clock, metrics: metrics)
        registrationRoutes.add(to: router)
        ChannelRoutes(store: store, apps: apps, clock: clock).add(to: router)
        let templateRoutes = PushTemplateRoutes(
            templates: templates, messages: messages, apps: apps, clock: clock, dispatcher: dispatcher)
        templateRoutes.add(to: router)
        let liveActivities = LiveActivityPublish(
            messages: messages, store: store, apps: apps, clock: clock, dispatcher: dispatcher, channels: broadcastChannels)
        let channelRoutes = broadcastChannels.map { LiveActivityChannelRoutes(channels: $0, apps: apps, clock: clock) }
        let messageRoutes = MessageRoutes(
            messages: messages, templates: templateRoutes, pubsub: pubsub, apps: apps, clock: clock, dispatcher: dispatcher,
            metrics: metrics, liveActivities: liveActivities)
        messageRoutes.add(to: router)
        pubsub.add(to: router)
        // The Java/Android SDK's AMF calls, through the routes above.
        BinaryRoutes(
            binary: BackendlessBinary(
                registrations: registrationRoutes, messages: messageRoutes, templates: templateRoutes, pubsub: pubsub, apps: apps,
                clock: clock, logger: logger),
            appInfo: appInfo
        ).add(to: router)
        AdminRoutes(apps: apps, sweeper: sweeper).add(to: router)
        StatsRoutes(messages: messages, apps: apps, clock: clock).add(to: router)
        DeviceRoutes(registry: registry, apps: apps, clock: clock, metrics: metrics).add(to: router)
        LiveActivityTokenRoutes(store: store, apps: apps, clock: clock).add(to: router)
        channelRoutes?.add(to: router)
        DeviceCheckRoutes(clients: deviceCheck, apps: apps, metrics: metrics).add(to: router)
        if var console {
            // The console's Live Activity forms run the very routes' code.
            console.liveActivityPublish = liveActivities
            console.broadcastChannels = channelRoutes
            console.add(to: router)
        }
        rt?.add(to: router)
        routeMethods.load(router.routes)
        return router
    }

    /// The server and its services. They stop in reverse order: the HTTP server first (no new
    /// publishes), then the sweeper, the webhook sender, the dispatcher (checkpoints and gives its leases back) and last
    /// the push clients it was using.
    public static func makeApplication(
        configuration: HeraldConfiguration,
        store: any RegistrationStore,
        messages: any MessageStore,
        registry: any DeviceRegistryStore,
        templates: any PushTemplateStore,
        pubsub: PubSubParts,
        apps: AppDirectory,
        clock: any WallClock = SystemClock(),
        outbox: (any WebhookOutboxStore)? = nil,
        readiness: Readiness = Readiness(backend: nil),
        exporter: MetricsExporter = MetricsExporter(),
        logger: Logger,
        onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    ) -> some ApplicationProtocol {
        let sweeper = Sweeper(
            configuration: configuration, store: store, messages: messages, registry: registry, clock: clock, metrics: exporter.metrics,
            logger: logger)
        let clients = ProviderClients(factories: configuration.providerFactories(clock: clock), logger: logger)
        exporter.beforeExposition { [metrics = exporter.metrics] in clients.reportReplacedConnections(to: metrics) }
        let dispatcher = Dispatcher(
            messages: messages, registrations: store, clients: clients, clock: clock, settings: configuration.dispatcher,
            singleServer: configuration.database.isSingleServer, metrics: exporter.metrics, logger: logger)
        // DeviceCheck clients stop after the HTTP server (the last service stops first) that calls them.
        let deviceCheck = DeviceCheckClients(apps: configuration.apps, clock: clock, logger: logger)
        // Streams end (the hub stops) before the HTTP server waits for its requests to finish.
        let hub = PubSubHub(
            store: pubsub.store, backend: pubsub.backend, signal: pubsub.signal, clock: clock, configuration: configuration.pubsub,
            metrics: exporter.metrics, logger: logger)
        var services: [any Service] = [deviceCheck, clients, dispatcher, hub]
        // Backendless RT stops before the hub its message listeners read from.
        var rtRoutes: RTRoutes?
        var rtHandler: BackendlessRT?
        if configuration.rt.enabled {
            let handler = BackendlessRT(
                apps: apps, hub: hub, store: pubsub.store, clock: clock, pubsub: configuration.pubsub, configuration: configuration.rt,
                metrics: exporter.metrics, logger: logger)
            let server = SocketIOServer(configuration: configuration.rt.engine, handler: handler, logger: logger)
            services.append(server)
            rtRoutes = RTRoutes(server: server, handler: handler)
            rtHandler = handler
        }
        if let backend = pubsub.backend, backend.dialect.kind == .postgres {
            services.append(DueMessageListener(backend: backend, dispatcher: dispatcher))
        }
        let targets = Dictionary(uniqueKeysWithValues: configuration.apps.compactMap { app in app.webhook.map { (app.id, $0) } })
        if let outbox, !targets.isEmpty {
            services.append(
                WebhookService(
                    outbox: outbox, targets: targets, clock: clock, policy: configuration.webhooks,
                    pollInterval: .milliseconds(Int64(configuration.dispatcher.pollIntervalSeconds * 1000)), logger: logger))
        }
        if configuration.sweeper.intervalSeconds > 0 {
            services.append(SweeperService(sweeper: sweeper, intervalSeconds: configuration.sweeper.intervalSeconds, logger: logger))
        }
        // /metrics on the main port, or alone on its own listener (which then stops with the services).
        let metricsRoute = MetricsRoutes(exporter: exporter, bearerToken: configuration.metrics.bearerToken)
        let exposed = configuration.metrics.enabled
        if exposed, let port = configuration.metrics.port {
            let router = Router()
            router.add(middleware: FaultMiddleware())
            metricsRoute.add(to: router)
            services.append(
                Application(
                    router: router,
                    server: .http1(
                        configuration: .init(additionalChannelHandlers: [ProtocolErrorHandler(logger: logger, metrics: exporter.metrics)])),
                    configuration: .init(address: .hostname(configuration.metrics.host, port: port), serverName: "Herald"),
                    logger: logger))
        }
        // One timeout for a request: its head (idle timeout) and then its whole body (RequestDeadlineHandler).
        let requestTimeout = TimeAmount.milliseconds(Int64(configuration.http.idleTimeoutSeconds * 1000))
        let pubsubRoutes = PubSubRoutes(
            store: pubsub.store, hub: hub, apps: apps, clock: clock, configuration: configuration.pubsub, metrics: exporter.metrics)
        // HTTP/1.1, and the WebSocket form of a subscription's stream (asked for by an upgrade request).
        let webSocketRouter = pubsubRoutes.webSocketRouter()
        rtRoutes?.add(to: webSocketRouter)
        let webSocketResponder = webSocketRouter.buildResponder()
        let decoderLimits = {
            var limits = NIOHTTPDecoderLimitConfiguration()
            limits.maxHeaderFieldSize = Limits.headerFieldBytes
            limits.maxHeaderListSize = Limits.headerBytes
            limits.maxHeaderFieldCount = Limits.headerCount
            return limits
        }()
        let channelConfiguration = HTTP1WebSocketUpgradeChannel.Configuration(
            http1: .init(
                additionalChannelHandlers: [
                    ProtocolErrorHandler(logger: logger, metrics: exporter.metrics),
                    RequestDeadlineHandler(timeout: requestTimeout),
                ],
                // A little later than the body deadline, which answers 408 before Hummingbird's timer
                // (restarted by the head's arrival) would close the connection without an answer.
                idleTimeout: requestTimeout + .milliseconds(250),
                httpDecoderConfiguration: .init(
                    maxHeaderFieldSize: decoderLimits.maxHeaderFieldSize, maxHeaderListSize: decoderLimits.maxHeaderListSize,
                    maxHeaderFieldCount: decoderLimits.maxHeaderFieldCount)),
            ws: .init(
                // A stream's client sends nothing but control frames; an RT client sends its events.
                maxFrameSize: configuration.rt.enabled ? max(4096, configuration.rt.maxMessageBytes) : 4096,
                autoPing: .enabled(timePeriod: .milliseconds(Int64(configuration.pubsub.heartbeatSeconds * 1000))),
                closeTimeout: .seconds(5)))
        return Application(
            router: makeRouter(
                store: store, messages: messages, registry: registry, templates: templates,
                pubsub: pubsubRoutes,
                apps: apps, clock: clock, sweeper: sweeper,
                dispatcher: dispatcher, readiness: readiness, metrics: exporter.metrics,
                metricsRoute: exposed && configuration.metrics.port == nil ? metricsRoute : nil, deviceCheck: deviceCheck,
                cors: CORSPolicy(apps: configuration.apps),
                // The console's sessions live in the same database as everything else.
                console: configuration.console.enabled
                    ? pubsub.backend.map { backend in
                        var console = ConsoleRoutes(
                            sessions: SQLConsoleSessionStore(backend: backend), store: store, messages: messages, dispatcher: dispatcher,
                            registry: registry, templates: templates, apps: apps,
                            clock: clock, server: configuration, outbox: SQLWebhookOutbox(backend: backend), sweeper: sweeper,
                            readiness: readiness, logger: logger)
                        console.live = ConsoleLiveSubscribers(hub: hub, rt: rtHandler)
                        return console
                    } : nil,
                http: configuration.http, rt: rtRoutes, broadcastChannels: pubsub.backend.map(BroadcastChannelStore.init),
                logger: logger),
            server: HTTPServerBuilder { responder in
                HeraldChannel(
                    upgradable: HTTP1WebSocketUpgradeChannel(
                        responder: responder, webSocketResponder: webSocketResponder, configuration: channelConfiguration),
                    firstRequestTimeout: requestTimeout + .milliseconds(250), decoderLimits: decoderLimits, logger: logger,
                    metrics: exporter.metrics)
            },
            configuration: .init(
                address: .hostname(configuration.http.host, port: configuration.http.port),
                serverName: "Herald",
                availableConnectionsDelegate: MaximumAvailableConnections(configuration.http.maxConnections)),
            services: services,
            onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? configuration.http.port) },
            logger: logger)
    }
}
