import Dispatch
import Logging
import ServiceLifecycle

/// Runs the sweeper on a `DispatchSourceTimer` for as long as the service group runs. Instances that share
/// a database take turns: one sweep per interval between them (see `Sweeper.sweepIfDue`).
///
/// The timer only signals; the sweep itself runs in this service's own task, one at a time: a tick that
/// arrives while a sweep is running is coalesced rather than queued, so a slow sweep never piles up.
public final class SweeperService: Service {
    let sweeper: Sweeper
    let interval: DispatchTimeInterval
    let intervalSeconds: Double
    let logger: Logger

    public init(sweeper: Sweeper, intervalSeconds: Double, logger: Logger) {
        self.sweeper = sweeper
        // Clamped to a day at most: far beyond any useful interval, and far from Int overflow.
        self.intervalSeconds = min(86_400, max(0.001, intervalSeconds))
        self.interval = .nanoseconds(Int(self.intervalSeconds * 1_000_000_000))
        self.logger = logger
    }

    public func run() async throws {
        let (ticks, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "herald.sweeper.timer"))
        timer.schedule(deadline: .now() + interval, repeating: interval, leeway: .milliseconds(100))
        timer.setEventHandler { continuation.yield() }
        timer.resume()
        defer {
            timer.cancel()
            continuation.finish()
        }
        for await _ in ticks.cancelOnGracefulShutdown() {
            do {
                _ = try await sweeper.sweepIfDue(intervalSeconds: intervalSeconds)
            } catch is CancellationError {
                return
            } catch {
                // A failed sweep is retried at the next tick; expired rows stay invisible meanwhile.
                logger.error("sweep failed", metadata: ["herald.error": "\(error)"])
            }
        }
    }
}
