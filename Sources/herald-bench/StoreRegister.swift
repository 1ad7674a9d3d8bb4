import ArgumentParser
import HeraldCore
import HeraldStore

/// `herald-bench register`: the registrations of bench/register.lua, straight into the store with no
/// HTTP in between. Comparing its rate with wrk's shows how much of the HTTP figure the store sets.
struct StoreRegister: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "register",
        abstract: "Time concurrent SQLRegistrationStore.register calls (durable group commits, no HTTP).")

    @OptionGroup var database: DatabaseOption

    @Option(help: "Registrations in flight at once (like wrk's connections).")
    var concurrency = 64

    @Option(help: "Registrations to make in all.")
    var count = 20_000

    func validate() throws {
        guard concurrency > 0, count >= concurrency else { throw ValidationError("need count >= concurrency > 0") }
    }

    func run() async throws {
        let requests = try (0..<count).map(Self.request)
        let concurrency = self.concurrency
        let clock = ContinuousClock()
        let (elapsed, latencies) = try await withBackend(database) { backend in
            let store = SQLRegistrationStore(backend: backend)
            let start = clock.now
            let latencies = try await withThrowingTaskGroup(of: [Double].self) { group in
                for worker in 0..<concurrency {
                    group.addTask {
                        var mine: [Double] = []
                        for index in stride(from: worker, to: requests.count, by: concurrency) {
                            let began = clock.now
                            _ = try await store.register(app: "bench", requests[index], now: SystemClock().now)
                            mine.append((clock.now - began).seconds * 1_000)
                        }
                        return mine
                    }
                }
                return try await group.reduce(into: []) { $0 += $1 }
            }
            return (clock.now - start, latencies)
        }
        let sorted = latencies.sorted()
        func percentile(_ p: Double) -> Double { sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))] }
        print(
            "store register: concurrency=\(concurrency) registrations=\(count) seconds=\(format(elapsed.seconds, 2)) "
                + "rps=\(Int(Double(count) / elapsed.seconds)) p50_ms=\(format(percentile(0.50), 2)) "
                + "p99_ms=\(format(percentile(0.99), 2)) max_ms=\(format(sorted[sorted.count - 1], 2))")
    }

    /// Request `index`: a new device on one or two channels, every third expiring in a day.
    static func request(_ index: Int) throws -> RegistrationRequest {
        let tomorrow = Timestamp(milliseconds: SystemClock().now.milliseconds + 86_400_000)
        var channels = [try ChannelName(validating: "news")]
        if index % 2 == 1 { channels.append(try ChannelName(validating: "sports")) }
        return RegistrationRequest(
            deviceId: try DeviceID(validating: "store-\(index)"),
            deviceToken: try DeviceToken(validating: PopulationPlan.token(index + 1), os: .ios),
            os: .ios, osVersion: nil, channels: channels,
            expiration: index % 3 == 2 ? Expiration(timestamp: tomorrow) : nil)
    }
}
