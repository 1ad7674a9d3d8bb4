import ArgumentParser
import Herald
import HeraldCore
import HeraldStore

struct Sweep: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Remove expired registrations once, print how many, and exit.")

    @OptionGroup var common: CommonOptions

    func run() async throws {
        try await reportingFailures {
            let configuration = try common.load()
            let logger = makeLogger()
            let backend = try await HeraldRuntime.openMigrated(configuration.database, logger: logger)
            let sweeper = Sweeper(store: SQLRegistrationStore(backend: backend), clock: SystemClock(),
                                  batchSize: configuration.sweeper.batchSize, logger: logger)
            do {
                let report = try await sweeper.sweep(trigger: "cli")
                try await backend.close()
                print("removed \(report.removed) expired registrations in \(String(format: "%.1f", report.durationMilliseconds)) ms")
            } catch {
                try? await backend.close()
                throw StartupError("sweep failed: \(error)")
            }
        }
    }
}
