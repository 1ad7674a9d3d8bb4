import ArgumentParser
import Herald
import HeraldStore

struct Migrate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Apply pending schema migrations and exit.")

    @OptionGroup var common: CommonOptions

    func run() async throws {
        try await reportingFailures {
            let configuration = try common.load()
            let logger = makeLogger()
            let backend = try await HeraldRuntime.openMigrated(configuration.database, logger: logger)
            try await backend.close()
            print("database \(configuration.database) is up to date")
        }
    }
}
