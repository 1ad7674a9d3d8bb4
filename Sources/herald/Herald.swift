import ArgumentParser
import Foundation
import Herald
import Logging

/// The `herald` command: a thin shell that parses flags, reads configuration and hands over to the Herald module.
@main
struct HeraldCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "herald",
        abstract: "Herald: a self-hosted push-notification channel broker with the Backendless Messaging API.",
        version: HeraldVersion.current,
        subcommands: [Serve.self, Migrate.self, Sweep.self, Backup.self, Restore.self, Keys.self, Demo.self, Probe.self, Schema.self],
        defaultSubcommand: Serve.self)
}

/// Flags every subcommand shares.
struct CommonOptions: ParsableArguments {
    @Option(name: .long, help: "JSON configuration file (HERALD_* environment variables override it).")
    var config: String?

    @Option(name: .long, help: "Database URL, e.g. sqlite:///var/lib/herald/herald.sqlite (default ./herald.sqlite).")
    var database: String?

    func load(host: String? = nil, port: Int? = nil) throws -> HeraldConfiguration {
        try ConfigurationLoader.load(file: config, overrides: .init(host: host, port: port, database: database))
    }
}

/// Runs `body`, turning a start-up failure into one line on stderr and exit code 1.
func reportingFailures(_ body: () async throws -> Void) async throws {
    do {
        try await body()
    } catch let error as ConfigurationError {
        fail(error.description)
    } catch let error as StartupError {
        fail(error.description)
    }
}

func fail(_ line: String) -> Never {
    FileHandle.standardError.write(Data("herald: \(line)\n".utf8))
    exit(1)
}

/// Herald's logger as `log.level` and `log.format` say (`HERALD_LOG_LEVEL` and `HERALD_LOG_FORMAT` are
/// those settings too, like every `HERALD_*` variable).
func makeLogger(_ configuration: HeraldConfiguration) -> Logger {
    configuration.log.makeLogger()
}
