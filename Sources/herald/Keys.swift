import ArgumentParser
import Herald
import HeraldStore

struct Keys: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Print the demo app's generated API keys (demo mode only).")

    @OptionGroup var common: CommonOptions

    func run() async throws {
        try await reportingFailures {
            let configuration = try common.load()
            guard configuration.apps.isEmpty else {
                throw ConfigurationError("apps are configured, so there is no demo app; the keys are in your configuration")
            }
            let keys = try await withDatabase(configuration) { try await SQLRegistrationStore(backend: $0).storedKeys(app: DemoApp.id) }
            guard !keys.isEmpty else { throw StartupError("no demo keys yet: run `herald serve` once to create them") }
            for key in keys { print("\(DemoApp.id) \(key.role.rawValue) \(key.key)") }
        }
    }
}
