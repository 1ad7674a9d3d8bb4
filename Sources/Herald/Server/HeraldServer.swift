import HeraldCore
import HeraldStore
import Hummingbird
import Logging
import ServiceLifecycle

/// Builds the HTTP application from its parts. Everything it needs is passed in, so tests assemble
/// the same server the binary runs, with their own store, clock and port 0.
public enum HeraldServer {
    public static func makeRouter(store: any RegistrationStore, apps: AppDirectory, clock: any WallClock,
                                  sweeper: Sweeper) -> Router<BasicRequestContext> {
        let router = Router(context: BasicRequestContext.self)
        router.add(middleware: FaultMiddleware())
        RegistrationRoutes(store: store, apps: apps, clock: clock).add(to: router)
        ChannelRoutes(store: store, apps: apps, clock: clock).add(to: router)
        AdminRoutes(apps: apps, sweeper: sweeper).add(to: router)
        return router
    }

    public static func makeApplication(
        configuration: HeraldConfiguration,
        store: any RegistrationStore,
        apps: AppDirectory,
        clock: any WallClock = SystemClock(),
        logger: Logger,
        onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    ) -> some ApplicationProtocol {
        let sweeper = Sweeper(store: store, clock: clock, batchSize: configuration.sweeper.batchSize, logger: logger)
        var services: [any Service] = []
        if configuration.sweeper.intervalSeconds > 0 {
            services.append(SweeperService(sweeper: sweeper, intervalSeconds: configuration.sweeper.intervalSeconds, logger: logger))
        }
        return Application(
            router: makeRouter(store: store, apps: apps, clock: clock, sweeper: sweeper),
            configuration: .init(address: .hostname(configuration.http.host, port: configuration.http.port),
                                 serverName: "Herald"),
            services: services,
            onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? configuration.http.port) },
            logger: logger)
    }
}
