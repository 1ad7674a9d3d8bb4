import ArgumentParser
import HeraldStore
import SQLKit

/// `herald-bench statements`: what one SQL statement costs on the writer, apart from what it does.
///
/// Each write runs `--statements` trivial statements (`SELECT 1`) in the backend's group-committed
/// transaction; `--concurrency` writers keep batches full. The time per statement is the round trip
/// from Swift to SQLite's thread and back, which bounds any write made of that many statements.
struct StatementCost: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "statements",
        abstract: "Time writes made of N trivial statements, to price one statement's round trip.")

    @OptionGroup var database: DatabaseOption

    @Option(help: "Trivial statements per write.")
    var statements = 4

    @Option(help: "Writes in flight at once.")
    var concurrency = 64

    @Option(help: "Writes to make in all.")
    var count = 20_000

    func run() async throws {
        let statements = self.statements
        let concurrency = self.concurrency
        let count = self.count
        let clock = ContinuousClock()
        let elapsed = try await withBackend(database) { backend in
            let start = clock.now
            try await withThrowingTaskGroup(of: Void.self) { group in
                for worker in 0..<concurrency {
                    group.addTask {
                        for _ in stride(from: worker, to: count, by: concurrency) {
                            try await backend.write { db in
                                for _ in 0..<statements { try await db.raw("SELECT 1").run() }
                            }
                        }
                    }
                }
                try await group.waitForAll()
            }
            return clock.now - start
        }
        let seconds = elapsed.seconds
        print(
            "writes of \(statements) statements: concurrency=\(concurrency) writes=\(count) seconds=\(format(seconds, 2)) "
                + "writes/s=\(Int(Double(count) / seconds)) us_per_statement=\(format(seconds * 1e6 / Double(count * max(1, statements)), 1))"
        )
    }
}
