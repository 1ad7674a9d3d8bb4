import ArgumentParser
import Herald
import HeraldStore
import HeraldTerminal

struct Migrate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Apply pending schema migrations and exit.",
        discussion: """
            Each migration applied is shown with its name, the rows it rewrote and its time: on a terminal as it \
            goes, on one line rewritten in place; otherwise (a pipe, a log) one line per migration once it is done.
            """)

    @OptionGroup var common: CommonOptions

    func run() async throws {
        try await reportingFailures {
            let configuration = try common.load()
            let view = MigrationView(output: .standardOutput())
            do {
                try await withDatabase(configuration, progress: MigrationProgress { view.show($0) }) { _ in }
            } catch {
                view.output.abandon()
                throw error
            }
            print("database \(configuration.database) is up to date")
        }
    }
}

/// `herald migrate`'s lines for the migrations it applies: "0013_message_contents … 1,200 of 5,000 rows (24%)"
/// while one runs (on a terminal), "0013_message_contents … 5,000 of 5,000 rows, 3.1 s" once it is done.
struct MigrationView: Sendable {
    let output: TerminalProgress

    func show(_ event: MigrationProgress.Event) {
        switch event {
        case .started(let step):
            output.update("\(step) …")
        case .advanced(let step, let rows):
            let percent = rows.total.map { " (\(ProgressFormat.percent(rows.done, of: $0))%)" } ?? ""
            output.update("\(step) … \(ProgressFormat.amount(rows.done, of: rows.total, "rows"))\(percent)")
        case .finished(let step, let rows, let duration):
            let amount = rows.map { ProgressFormat.amount($0.done, of: $0.total, "rows") + ", " } ?? ""
            output.finish("\(step) … \(amount)\(ProgressFormat.duration(duration))")
        }
    }
}
