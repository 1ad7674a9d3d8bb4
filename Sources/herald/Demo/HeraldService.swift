import Herald
import Logging
import ServiceLifecycle

/// `HeraldRuntime.serve` as a service, so the demo's own service group can stop it gracefully; it
/// announces the port it got (the demo asks for port 0).
struct HeraldService: Service {
    let configuration: HeraldConfiguration
    let logger: Logger
    let announce: AsyncStream<Int>.Continuation

    func run() async throws {
        try await HeraldRuntime.serve(configuration: configuration, logger: logger) { [announce] started in
            announce.yield(started.port)
        }
    }
}
