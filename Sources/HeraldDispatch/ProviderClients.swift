import HeraldCore
import HeraldMetrics
import Logging
import ServiceLifecycle
import Synchronization

/// The push clients of every app, keyed by app and provider: each is made the first time the app has
/// something to send through that provider (a client owns a thread and its connections), and all are
/// shut down when the service group stops, after the dispatcher.
///
/// Herald's configuration hands in one factory per configured app and provider, so this engine reads no
/// configuration file and knows no provider's settings.
public final class ProviderClients: Service {
    /// Makes one app's client for one provider; its error's text is what the message fails with.
    public typealias Factory = @Sendable (_ logger: Logger) throws -> any PushClient

    private struct Key: Hashable {
        let app: String
        let provider: PushProvider
    }

    private let factories: [Key: Factory]
    private let logger: Logger
    private let clients = Locked<[Key: any PushClient]>([:])
    /// What the fan-outs of this instance heard from each provider.
    let book = ProviderHealthBook()
    private let closed = Atomic<Bool>(false)
    /// What `reportReplacedConnections` has reported of each client's replaced connections.
    private let reported = Locked<[Key: Int]>([:])

    /// `factories[app][provider]`: the providers each app has settings for.
    public init(factories: [String: [PushProvider: Factory]], logger: Logger) {
        var flat: [Key: Factory] = [:]
        for (app, providers) in factories {
            for (provider, factory) in providers { flat[Key(app: app, provider: provider)] = factory }
        }
        self.factories = flat
        self.logger = logger
    }

    /// Why a message cannot be sent through a provider.
    public enum Unavailable: Error, CustomStringConvertible {
        case noCredentials(String, [PushProvider])
        case setup(String, PushProvider, String)
        case shutDown

        public var description: String {
            switch self {
            case .noCredentials(let app, let providers):
                let all = providers.map(\.displayName)
                let names = all.count > 2 ? all.dropLast().joined(separator: ", ") + " or " + all.last! : all.joined(separator: " or ")
                let keys = providers.map { "apps[].\($0.rawValue)" }.joined(separator: ", ")
                return "app '\(app)' has no \(names) credentials configured (\(keys) in the configuration)"
            case .setup(let app, let provider, let reason):
                return "app '\(app)': the \(provider.displayName) client cannot start: \(reason)"
            case .shutDown:
                return "Herald is shutting down"
            }
        }
    }

    /// Whether `app` has settings for `provider`.
    public func isConfigured(_ provider: PushProvider, for app: String) -> Bool { factories[Key(app: app, provider: provider)] != nil }

    /// The app's client for `provider`, made on first use.
    public func client(for app: String, _ provider: PushProvider) throws(Unavailable) -> any PushClient {
        let key = Key(app: app, provider: provider)
        guard let factory = factories[key] else { throw .noCredentials(app, [provider]) }
        let result: Result<any PushClient, Unavailable> = clients.withLock { clients in
            if closed.load(ordering: .acquiring) { return .failure(.shutDown) }
            if let client = clients[key] { return .success(client) }
            do {
                var clientLogger = logger
                clientLogger[metadataKey: "herald.app"] = "\(app)"
                let client = try factory(clientLogger)
                clients[key] = client
                return .success(client)
            } catch {
                return .failure(.setup(app, provider, "\(error)"))
            }
        }
        return try result.get()
    }

    /// The health of each provider `app` has settings for, on this instance.
    public func health(app: String) -> [ProviderHealth] {
        PushProvider.allCases.filter { isConfigured($0, for: app) }.map { provider in
            var health = book.health(app: app, provider: provider)
            if let client = clients.withLock({ $0[Key(app: app, provider: provider)] }) {
                health.started = true
                health.connections = client.connections
            }
            return health
        }
    }

    /// Adds to `metrics` the connections each started client replaced since the last call (Prometheus
    /// counters only go up, and a client counts from its start): the metrics endpoint calls it before
    /// each exposition. Every started client's counter appears, at 0 until a connection is replaced.
    public func reportReplacedConnections(to metrics: HeraldMetrics) {
        let totals = clients.withLock { clients in clients.map { ($0.key, $0.value.connections.replaced) } }
        let deltas = reported.withLock { reported in
            var deltas: [(PushProvider, Int)] = []
            for (key, total) in totals {
                deltas.append((key.provider, max(0, total - (reported[key] ?? 0))))
                reported[key] = total
            }
            return deltas
        }
        for (provider, count) in deltas { metrics.connectionsReplaced(provider: provider.rawValue, count: count) }
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
