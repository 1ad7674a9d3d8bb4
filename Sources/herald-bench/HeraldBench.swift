import ArgumentParser
import Foundation
import Herald
import HeraldStore
import Logging
import SQLKit

/// `herald-bench`: Herald's benchmarks (see BENCHMARKS.md and bench/run.sh): the store, the sweeper,
/// the APNs and FCM clients (`apns`, `fcm`) and the whole broker (`publish`).
///
/// The HTTP figures come from `wrk` against a running `herald serve`. This command prepares databases
/// of a chosen size (`populate`), times Herald's sweeper (`sweep`) and store (`register`) on them, and
/// reads them back (`stats`). `statements` and `--writer-pragma`
/// are experiments that price changes to Herald; they are not Herald's code path.
/// Build it in release mode: debug timings mean nothing.
struct HeraldBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "herald-bench",
        abstract: "Prepare benchmark databases and time Herald's store and sweeper.",
        subcommands: [
            Populate.self, SweepBench.self, StoreRegister.self, Stats.self,
            StatementCost.self, APNsBench.self, APNsToken.self, FCMBench.self, FCMToken.self, WebPushBench.self, WebPushPublishBench.self,
            DeviceCheckBench.self, PublishBench.self,
            PruneBench.self, PubSubBench.self, RTChurnBench.self,
        ])
}

/// The entry point. The command runs on Swift's task pool while the main thread waits for it, not through an
/// async `main`: that parks the main thread in `dispatch_main`, which valgrind 3.19 (Debian 12) cannot run,
/// and `valgrind --tool=callgrind` counting a benchmark's instructions is the noise-free figure beside its
/// timings (BENCHMARKS.md, "How to run").
@main
enum HeraldBenchMain {
    static func main() {
        let done = DispatchSemaphore(value: 0)
        Task.detached {
            await HeraldBench.main()
            done.signal()
        }
        done.wait()
    }
}

/// The database flag every subcommand takes.
struct DatabaseOption: ParsableArguments {
    @Option(name: .long, help: "The database: a SQLite file (a plain path or sqlite:///path) or a postgres:// URL.")
    var database: String

    var url: DatabaseURL {
        get throws { try DatabaseURL(parsing: database) }
    }

    @Option(
        name: .customLong("writer-pragma"),
        help: "Experiment: a PRAGMA for the writer connection, e.g. cache_size=-65536 (repeatable).")
    var writerPragmas: [String] = []

    /// Applies the `--writer-pragma` settings. `write` runs on the one writer connection. PRAGMA takes no
    /// bind parameters; the text comes from the operator's own command line. SQLite ignores unknown names.
    func applyPragmas(_ backend: any SQLBackend) async throws {
        for pragma in writerPragmas {
            try await backend.write { db in try await db.raw("PRAGMA \(unsafeRaw: pragma)").run() }
        }
    }
}

/// Warnings only: the benchmark prints its own figures, and Herald's per-sweep info lines would interleave.
func benchLogger() -> Logger {
    var logger = Logger(label: "herald-bench")
    logger.logLevel = .warning
    return logger
}

/// Opens the file through Herald's own start-up path, so the schema and pragmas are the server's (plus any
/// `--writer-pragma`, to price a setting Herald does not make), runs `body`, and closes it afterwards.
func withBackend<T>(_ option: DatabaseOption, _ body: (any SQLBackend) async throws -> T) async throws -> T {
    try await HeraldRuntime.withMigrated(try option.url, logger: benchLogger()) { backend in
        try await option.applyPragmas(backend)
        return try await body(backend)
    }
}
