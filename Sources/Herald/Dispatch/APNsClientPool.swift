import HeraldAPNs
import HeraldCore
import Logging
import ServiceLifecycle
import Synchronization

/// One APNs client per app, made the first time the app has something to send (each client owns a
/// thread and its connections), and shut down when the service group stops, after the dispatcher.
public final class APNsClientPool: Service {
    private let apps: [String: APNsAppConfiguration]
    private let clock: any WallClock
    private let logger: Logger
    private let clients = Locked<[String: APNsClient]>([:])
    private let closed = Atomic<Bool>(false)

    public init(apps: [AppConfiguration], clock: any WallClock, logger: Logger) {
        var byId: [String: APNsAppConfiguration] = [:]
        for app in apps { if let apns = app.apns { byId[app.id] = apns } }
        self.apps = byId
        self.clock = clock
        self.logger = logger
    }

    /// Why a message of `app` cannot be sent at all, or nil when it can.
    enum Unavailable: Error, CustomStringConvertible {
        case noCredentials(String)
        case setup(String, String)
        case shutDown

        var description: String {
            switch self {
            case .noCredentials(let app):
                "app '\(app)' has no APNs credentials configured (apps[].apns in the configuration)"
            case .setup(let app, let reason): "app '\(app)': the APNs client cannot start: \(reason)"
            case .shutDown: "Herald is shutting down"
            }
        }
    }

    /// The app's settings (its topic), if it has any.
    func settings(for app: String) -> APNsAppConfiguration? { apps[app] }

    /// The app's client, made on first use.
    func client(for app: String) throws(Unavailable) -> APNsClient {
        guard let settings = apps[app] else { throw .noCredentials(app) }
        let result: Result<APNsClient, Unavailable> = clients.withLock { clients in
            if closed.load(ordering: .acquiring) { return .failure(.shutDown) }
            if let client = clients[app] { return .success(client) }
            do {
                let configuration = try settings.clientConfiguration(clock: clock)
                var clientLogger = logger
                clientLogger[metadataKey: "herald.app"] = "\(app)"
                let client = try APNsClient(configuration: configuration, logger: clientLogger)
                clients[app] = client
                return .success(client)
            } catch {
                return .failure(.setup(app, "\(error)"))
            }
        }
        return try result.get()
    }

    public func run() async throws {
        try? await gracefulShutdown()
        let all = clients.withLock { clients in
            closed.store(true, ordering: .releasing)
            defer { clients.removeAll() }
            return Array(clients.values)
        }
        for client in all { client.shutdown() }
    }
}
