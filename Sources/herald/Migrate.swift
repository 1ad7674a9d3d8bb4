import ArgumentParser
import Herald

struct Migrate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Apply pending schema migrations and exit.")

    @OptionGroup var common: CommonOptions

    func run() async throws {
        try await reportingFailures {
            let configuration = try common.load()
            try await withDatabase(configuration) { _ in }
            print("database \(configuration.database) is up to date")
        }
    }
}
