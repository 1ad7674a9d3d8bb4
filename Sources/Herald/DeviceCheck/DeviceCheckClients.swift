import HeraldCore
import HeraldDeviceCheck
import Logging
import ServiceLifecycle

/// Each app's DeviceCheck client, made on the app's first call (its settings were checked at start-up)
/// and shut down with the server. A service, so it stops after the HTTP server that uses it.
final class DeviceCheckClients: Service, Sendable {
    private let settings: [String: DeviceCheckAppConfiguration]
    private let clock: any WallClock
    private let logger: Logger
    private let state = Locked<(clients: [String: DeviceCheckClient], closed: Bool)>(([:], false))

    init(apps: [AppConfiguration], clock: any WallClock, logger: Logger) {
        settings = Dictionary(uniqueKeysWithValues: apps.compactMap { app in app.deviceCheck.map { (app.id, $0) } })
        self.clock = clock
        self.logger = logger
    }

    /// The app's client; 5070 when the app has no `deviceCheck` block.
    func client(for app: String) throws(HeraldFault) -> DeviceCheckClient {
        guard let configuration = settings[app] else { throw .deviceCheckNotConfigured(app: app) }
        let made = state.withLock { state -> Result<DeviceCheckClient, HeraldFault> in
            if state.closed { return .failure(.deviceCheckUnavailable("Herald is stopping")) }
            if let client = state.clients[app] { return .success(client) }
            do {
                var logger = self.logger
                logger[metadataKey: "herald.app"] = "\(app)"
                let client = try DeviceCheckClient(configuration: try configuration.clientConfiguration(clock: clock), logger: logger)
                state.clients[app] = client
                return .success(client)
            } catch {
                return .failure(.deviceCheckUnavailable("its client cannot start: \(error)"))
            }
        }
        return try made.get()
    }

    func run() async throws {
        try? await gracefulShutdown()
        let all = state.withLock { state in
            state.closed = true
            defer { state.clients.removeAll() }
            return Array(state.clients.values)
        }
        for client in all { client.shutdown() }
    }
}
