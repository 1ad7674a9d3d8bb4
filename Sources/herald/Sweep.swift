import ArgumentParser
import Foundation
import Herald
import HeraldCore
import HeraldStore
import HeraldTerminal

struct Sweep: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Sweep the database once as the server's sweeper does, print what it removed, and exit.",
        discussion: """
            Removes expired registrations (and devices left without any), delivery history past its retention, \
            finished messages past messages.retentionDays, channels empty for sweeper.emptyChannelDays (when set), \
            Live Activities Apple no longer shows and idempotency keys older than 24 hours.
            """)

    @OptionGroup var common: CommonOptions

    func run() async throws {
        try await reportingFailures {
            let configuration = try common.load()
            let report = try await withDatabase(configuration, mustExist: true) { backend in
                do {
                    return try await Sweeper(
                        configuration: configuration, store: SQLRegistrationStore(backend: backend),
                        messages: SQLMessageStore(backend: backend), registry: SQLDeviceRegistry(backend: backend), clock: SystemClock(),
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
            print(Self.summary(report))
        }
    }

    /// One line naming every kind the sweep removes, zeros included, so a reader sees what it looked at.
    static func summary(_ report: Sweeper.Report) -> String {
        func count(_ value: Int, _ one: String, _ many: String) -> String { "\(ProgressFormat.count(value)) \(value == 1 ? one : many)" }
        let kinds = [
            count(report.removed, "expired registration", "expired registrations"),
            count(report.historyPruned, "history entry", "history entries"),
            count(report.messagesPruned, "finished message", "finished messages"),
            count(report.channelsRemoved, "empty channel", "empty channels"),
            count(report.liveActivitiesRemoved, "Live Activity no longer shown", "Live Activities no longer shown"),
            count(report.idempotencyKeysRemoved, "expired idempotency key", "expired idempotency keys"),
            count(
                report.stats.minutesRolledUp + report.stats.hoursPruned, "row of delivery statistics folded or expired",
                "rows of delivery statistics folded or expired"),
        ]
        let milliseconds = report.durationMilliseconds
        let took =
            milliseconds < 1000
            ? String(format: "%.1f ms", milliseconds) : ProgressFormat.duration(.milliseconds(Int64(milliseconds.rounded())))
        return "removed \(kinds.dropLast().joined(separator: ", ")) and \(kinds.last!) in \(took)"
    }
}
