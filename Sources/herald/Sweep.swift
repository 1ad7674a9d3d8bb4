import ArgumentParser
import Foundation
import Herald
import HeraldCore
import HeraldStore

struct Sweep: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Remove expired registrations once, print how many, and exit.")

    @OptionGroup var common: CommonOptions

    func run() async throws {
        try await reportingFailures {
            let configuration = try common.load()
            let report = try await withDatabase(configuration, mustExist: true) { backend in
                do {
                    let messages = SQLMessageStore(backend: backend)
                    return try await Sweeper(
                        store: SQLRegistrationStore(backend: backend), clock: SystemClock(),
                        batchSize: configuration.sweeper.batchSize,
                        history: Sweeper.HistoryRetention(
                            registry: SQLDeviceRegistry(backend: backend), days: configuration.history.days,
                            maxPerDevice: configuration.history.maxPerDevice),
                        messages: Sweeper.MessageRetention(messages: messages, days: configuration.messageRetentionDays),
                        idempotencyKeys: messages,
                        logger: makeLogger(configuration)
                    )
                    .sweep(
                        trigger: "cli",
                        onWait: {
                            FileHandle.standardError.write(
                                Data("herald: another Herald is sweeping this database; waiting for it to finish\n".utf8))
                        })
                } catch {
                    throw StartupError("sweep failed: \(error)")
                }
            }
            print(
                "removed \(report.removed) expired registrations, \(report.historyPruned) history entries and "
                    + "\(report.messagesPruned) finished messages in \(String(format: "%.1f", report.durationMilliseconds)) ms")
        }
    }
}
