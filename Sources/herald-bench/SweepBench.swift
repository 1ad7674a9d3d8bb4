import ArgumentParser
import Herald
import HeraldCore
import HeraldStore

/// `herald-bench sweep`: times Herald's own `Sweeper` (the code `herald sweep` and the timer run)
/// on a populated file, one or more times, with the real clock.
struct SweepBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sweep",
        abstract: "Time full sweeps of expired registrations.")

    @OptionGroup var database: DatabaseOption

    @Option(help: "Registrations deleted per transaction (Herald's default is 1000).")
    var batchSize = 1_000

    @Option(help: "Sweeps to run back to back; with more than one, the median and maximum are printed.")
    var times = 1

    func validate() throws {
        guard batchSize > 0, times > 0 else { throw ValidationError("--batch-size and --times must be positive") }
    }

    func run() async throws {
        try await withBackend(database) { backend in
            print("before: \(try await TableCounts.read(backend).summary)")
            let sweeper = Sweeper(
                store: SQLRegistrationStore(backend: backend), clock: SystemClock(),
                batchSize: batchSize, logger: benchLogger())
            var durations: [Double] = []
            var removed = 0
            for run in 1...times {
                let report = try await sweeper.sweep(trigger: "bench")
                durations.append(report.durationMilliseconds)
                removed += report.removed
                if times <= 5 || report.removed > 0 {
                    print("sweep #\(run) batch=\(batchSize) removed=\(report.removed) ms=\(format(report.durationMilliseconds, 3))")
                }
            }
            if times > 1 {
                let summary = SampleSummary(durations)
                print(
                    "sweeps=\(summary.count) batch=\(batchSize) removed=\(removed) median_ms=\(format(summary.median, 3)) "
                        + "min_ms=\(format(summary.min, 3)) max_ms=\(format(summary.max, 3))")
            }
            print("after: \(try await TableCounts.read(backend).summary)")
        }
    }
}
