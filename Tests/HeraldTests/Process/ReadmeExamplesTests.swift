import APNsMock
import FCMMock
import Foundation
import HeraldTestSupport
import Testing

/// The README's and docs/'s examples run as a new user runs them: the blocks marked `<!-- readme-check: NAME -->`
/// go to bash as written, against the built binary (and the mock APNs), and every `# → …` line must
/// match what the command before it printed (`…` stands for anything). A README whose examples drift
/// from what the server answers fails here.
@Suite(.serialized, .timeLimit(.minutes(2))) struct ReadmeExamplesTests {
    /// What the README's blocks name, and what the test puts in their place.
    static let readmeServer = "http://127.0.0.1:8080"
    static let readmeMockControl = "http://127.0.0.1:2198"
    static let readmeMock = "https://localhost:2197"
    static let readmeFCM = "https://localhost:2199"
    static let readmeFCMControl = "http://127.0.0.1:2200"
    static let readmeServiceAccount = "fixtures/fcm/service-account-mock.json"

    /// README's "Using it" and docs/registry.md's blocks, each against a fresh server in demo mode.
    @Test(arguments: ["demo", "registry"])
    func theUsingItExamplesAnswerAsShown(_ name: String) async throws {
        try await Self.runAgainstADemoServer([name])
    }

    /// docs/live-activities.md's block: tokens, a broadcast channel at the demo's mock APNs, a start and an update.
    @Test func theLiveActivityExamplesAnswerAsShown() async throws {
        try await Self.runAgainstADemoServer(["live-activities"])
    }

    /// docs/publishing.md's publish, follow and cancel blocks, in one shell (the later ones use the ids
    /// the first keeps).
    @Test func thePublishingExamplesAnswerAsShown() async throws {
        try await Self.runAgainstADemoServer(["publish", "follow", "cancel"])
    }

    /// Runs the named blocks in one shell as in the Quick start: `herald serve` in demo mode in an empty
    /// directory, the keys taken with `herald keys --env`.
    static func runAgainstADemoServer(_ names: [String]) async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let server = try HeraldProcess(["serve", "--port", "0"], directory: scratch.url)
        let base = try await server.waitUntilListening()
        let keys = try await HeraldProcess.run(["keys", "--env"], directory: scratch.url)
        #expect(keys.code == 0, "\(keys.stderr)")
        let examples = try names.flatMap { try Self.block($0) }
        let results = try Self.run(
            examples, prelude: keys.stdout, directory: scratch.url,
            substitutions: [Self.readmeServer: base.absoluteString.trimmingSuffix("/")])
        Self.check(results)
        server.process.terminate()
        _ = try await server.waitForExit()
    }

    /// Every name a `<!-- readme-check: NAME -->` marker may carry: the blocks the tests above run.
    static let runBlocks: Set<String> = ["demo", "registry", "quickstart", "mock", "publish", "follow", "cancel", "live-activities"]

    /// The Quick start as a new user follows it: `herald serve` in an empty directory (demo mode, with its
    /// mock APNs and FCM), then the block from the second terminal, `herald keys --env` included, which
    /// registers, publishes, and reads the delivery from the mock APNs at the address the banner gives.
    @Test func theQuickStartDeliversToTheMocksFromAnEmptyDirectory() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let server = try HeraldProcess(["serve", "--port", "0"], directory: scratch.url)
        let base = try await server.waitUntilListening()
        let banner = server.stdout
        #expect(banner.contains("nothing reaches Apple or Google"))
        let control = try #require(
            banner.split(separator: "\n").first { $0.contains("mock APNs") }?.split(separator: " ").last {
                $0.hasPrefix("http://127.0.0.1:")
            }, "the banner gives the mock APNs's control address: \(banner)")
        let examples = try Self.block("quickstart")
        #expect(examples.first?.command.hasPrefix("eval \"$(swift run herald keys --env)\"") == true)
        let results = try Self.run(
            examples, prelude: "", directory: scratch.url,
            substitutions: [
                Self.readmeServer: base.absoluteString.trimmingSuffix("/"),
                Self.readmeMockControl: String(control.dropLast("/control/notifications".count)),
                "swift run herald ": HeraldProcess.binary.path + " ",
            ])
        Self.check(results)
        server.process.terminate()
        #expect(try await server.waitForExit() == 0)
        #expect(server.stderr.contains("Herald stopped"), "one line says the server stopped on the signal")
    }

    @Test func publishingToTheMockAnswersAsShown() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        var configuration = APNsMockConfiguration(
            transport: .tls(certificateChainFile: FixtureFiles.serverCertificate, privateKeyFile: FixtureFiles.serverKey),
            authentication: .token([
                try APNsMockSigningKey(keyId: FixtureFiles.keyID, teamId: FixtureFiles.teamID, p8File: FixtureFiles.keyFile())
            ]))
        configuration.controlPort = 0
        let mock = try await APNsMock.start(configuration)
        var fcmConfiguration = FCMMockConfiguration(
            transport: .tls(certificateChainFile: FixtureFiles.serverCertificate, privateKeyFile: FixtureFiles.serverKey),
            serviceAccounts: [try FCMServiceAccount(keyFile: FixtureFiles.path("fixtures/fcm/service-account.json"))])
        fcmConfiguration.controlPort = 0
        let fcm: FCMMock
        do {
            fcm = try await FCMMock.start(fcmConfiguration)
        } catch {
            try? await mock.shutdown()
            throw error
        }
        do {
            try await Self.publishToTheMocks(mock, fcm, scratch: scratch)
        } catch {
            try? await mock.shutdown()
            try? await fcm.shutdown()
            throw error
        }
        try await mock.shutdown()
        try await fcm.shutdown()
    }

    static func publishToTheMocks(_ mock: APNsMock, _ fcm: FCMMock, scratch: Scratch) async throws {
        let controlPort = try #require(mock.controlPort)
        let fcmControlPort = try #require(fcm.controlPort)

        // deploy/herald-mock.json as shipped, but for the mocks' free ports (and the service account's
        // token URL with them); run from the repository's root like the README says (its paths are
        // relative to it), on a database of its own.
        let shipped = try String(contentsOf: FixtureFiles.root.appendingPathComponent("deploy/herald-mock.json"), encoding: .utf8)
        #expect(shipped.contains(readmeMock) && shipped.contains(readmeFCM) && shipped.contains(readmeServiceAccount))
        let account = try fcm.serviceAccountFile(
            copying: FixtureFiles.path(readmeServiceAccount), to: scratch.path("service-account-mock.json"))
        let config = try scratch.write(
            "herald-mock.json",
            shipped.replacingOccurrences(of: readmeMock, with: mock.baseURL).replacingOccurrences(of: readmeFCM, with: fcm.baseURL)
                .replacingOccurrences(of: readmeServiceAccount, with: account))
        let server = try HeraldProcess(
            ["serve", "--config", config, "--port", "0", "--database", "sqlite://" + scratch.path("mock.sqlite")],
            directory: FixtureFiles.root)
        let base = try await server.waitUntilListening()

        let examples = try block("mock")
        #expect(examples.contains { $0.command.hasPrefix("swift run apns-mock") })
        #expect(examples.contains { $0.command.hasPrefix("swift run fcm-mock") })
        #expect(examples.contains { $0.command.hasPrefix("swift run herald serve --config deploy/herald-mock.json") })
        let results = try run(
            examples, prelude: "", directory: scratch.url,
            substitutions: [
                readmeServer: base.absoluteString.trimmingSuffix("/"),
                readmeMockControl: "http://127.0.0.1:\(controlPort)",
                readmeFCMControl: "http://127.0.0.1:\(fcmControlPort)",
            ])
        check(results)
        #expect(mock.notifications().count == 1)
        #expect(fcm.messages().count == 1)
        server.process.terminate()
        _ = try await server.waitForExit()
    }

    // MARK: - Reading and running a block

    struct Example: Sendable {
        /// One shell command, with its continuation lines.
        var command: String
        /// The `# → ` line after it, if any.
        var expected: String?
    }

    /// The commands of the fenced block after `<!-- readme-check: name -->`, comments dropped.
    /// The documents whose marked blocks run: README.md, then every Markdown file of docs/.
    static func documents() throws -> [(name: String, lines: [String])] {
        let docs = FixtureFiles.root.appendingPathComponent("docs")
        let names = try FileManager.default.contentsOfDirectory(atPath: docs.path).filter { $0.hasSuffix(".md") }.sorted()
        let files =
            [("README.md", FixtureFiles.root.appendingPathComponent("README.md"))]
            + names.map { ("docs/\($0)", docs.appendingPathComponent($0)) }
        return try files.map { name, url in (name, try String(contentsOf: url, encoding: .utf8).components(separatedBy: "\n")) }
    }

    static func block(_ name: String) throws -> [Example] {
        let marked = try documents().compactMap { document in
            document.lines.firstIndex(of: "<!-- readme-check: \(name) -->").map { (document.name, document.lines, $0) }
        }
        guard marked.count == 1, let (_, lines, marker) = marked.first, lines.indices.contains(marker + 1), lines[marker + 1] == "```sh"
        else {
            throw HeraldProcess.Failure(
                "want exactly one ```sh block after <!-- readme-check: \(name) --> in README.md and docs/, found \(marked.map(\.0))")
        }
        var examples: [Example] = []
        var index = marker + 2
        var continuing = false
        while index < lines.count, lines[index] != "```" {
            let line = lines[index]
            index += 1
            if continuing {
                examples[examples.count - 1].command += "\n" + line
                continuing = line.hasSuffix("\\")
            } else if line.hasPrefix("# → ") {
                guard !examples.isEmpty else { continue }
                examples[examples.count - 1].expected = String(line.dropFirst("# → ".count))
            } else if line.hasPrefix("#") || line.trimmingCharacters(in: .whitespaces).isEmpty {
                continue
            } else {
                examples.append(Example(command: line))
                continuing = line.hasSuffix("\\")
            }
        }
        return examples
    }

    /// Runs the block in one bash (so `export` and variables carry on), skipping the `swift run` lines:
    /// the test has started those servers itself. Returns each command with what it printed.
    static func run(_ examples: [Example], prelude: String, directory: URL, substitutions: [String: String]) throws -> [(Example, String)] {
        let runnable = examples.filter { !$0.command.hasPrefix("swift run ") }
        var script = "set -u\n" + prelude + "\n"
        for (index, example) in runnable.enumerated() {
            var command = example.command
            for (from, to) in substitutions { command = command.replacingOccurrences(of: from, with: to) }
            // A server that stopped answering must fail the test, not hang it.
            command = command.replacingOccurrences(of: "curl -s ", with: "curl -s -m 10 ")
            script += "printf '\\n<<<\(index)>>>\\n'\n" + command + "\n"
        }
        let printed = try ChildProcess.run("/bin/bash", ["-c", script], directory: directory.path, mergeOutput: true).stdout
        var results: [(Example, String)] = []
        for (index, example) in runnable.enumerated() {
            let start = "<<<\(index)>>>\n"
            guard let from = printed.range(of: start) else {
                results.append((example, "(the script stopped before this command)\n\(printed)"))
                continue
            }
            let rest = printed[from.upperBound...]
            let end = rest.range(of: "\n<<<\(index + 1)>>>\n")?.lowerBound ?? rest.endIndex
            results.append((example, String(rest[..<end]).trimmingCharacters(in: .newlines)))
        }
        return results
    }

    /// Every command with an expectation printed what the README shows.
    static func check(_ results: [(Example, String)]) {
        #expect(results.contains { $0.0.expected != nil }, "the block has expectations")
        for (example, printed) in results {
            guard let expected = example.expected else { continue }
            #expect(matches(printed, expected), "README: \(example.command)\n  shows: \(expected)\n  got:   \(printed)")
        }
    }

    /// `expected` with `…` standing for any text.
    static func matches(_ text: String, _ expected: String) -> Bool {
        let parts = expected.components(separatedBy: "…").map(NSRegularExpression.escapedPattern(for:))
        guard
            let pattern = try? NSRegularExpression(
                pattern: "^" + parts.joined(separator: ".*?") + "$", options: [.dotMatchesLineSeparators])
        else { return false }
        return pattern.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil
    }
}

extension String {
    fileprivate func trimmingSuffix(_ suffix: String) -> String { hasSuffix(suffix) ? String(dropLast(suffix.count)) : self }
}
