import Foundation
import Herald
import HeraldTestSupport
import Testing

/// The configuration examples of README.md and docs/ load as written: every ```json block after
/// `<!-- config-check -->` goes through `ConfigurationLoader` (a block that is one app's `"name": {…}`
/// entry is put into an app first), with the example's key files swapped for the TEST ONLY ones under
/// fixtures/. A documented setting the loader refuses, or a key the loader no longer knows, fails here.
@Suite struct DocumentedConfigurationTests {
    /// The example paths and placeholders the documents use, and what the test reads in their place.
    static let substitutions: [(String, String)] = [
        ("/run/credentials/herald.service/shop.p8", FixtureFiles.keyFile()),
        ("/etc/herald/shop.p8", FixtureFiles.keyFile()),
        ("/etc/herald/shop-firebase.json", FixtureFiles.path("fixtures/fcm/service-account.json")),
        ("/etc/herald/shop-vapid.pem", FixtureFiles.path("fixtures/webpush/vapid-test.pem")),
        ("<random client key>", "client-key-0001"), ("<random server key>", "server-key-0001"),
        ("<random admin key>", "admin-key-0001"),
    ]

    struct Block: CustomStringConvertible {
        var document: String
        var line: Int
        var text: String
        var marked: Bool
        var description: String { "\(document):\(line)" }
    }

    /// Every ```json block of README.md and docs/, and whether `<!-- config-check -->` is on the line before.
    static func jsonBlocks() throws -> [Block] {
        try ReadmeExamplesTests.documents().flatMap { document -> [Block] in
            var blocks: [Block] = []
            for (index, line) in document.lines.enumerated() where line == "```json" {
                let body = document.lines[(index + 1)...].prefix { $0 != "```" }
                blocks.append(
                    Block(
                        document: document.name, line: index + 1, text: body.joined(separator: "\n"),
                        marked: index > 0 && document.lines[index - 1] == "<!-- config-check -->"))
            }
            return blocks
        }
    }

    /// A block that starts like a configuration file or an app's block must be checked.
    @Test func everyConfigurationExampleIsMarked() throws {
        let starts = ["{\"http\"", "{\"apps\"", "{\"database\"", "\"apns\":", "\"fcm\":", "\"deviceCheck\":", "\"webhook\":"]
        let unmarked = try Self.jsonBlocks().filter { block in
            !block.marked && starts.contains { block.text.trimmingCharacters(in: .whitespaces).hasPrefix($0) }
        }
        #expect(unmarked.isEmpty, "configuration examples without <!-- config-check -->: \(unmarked)")
    }

    @Test func everyMarkedExampleLoads() throws {
        let blocks = try Self.jsonBlocks().filter(\.marked)
        #expect(blocks.count >= 6, "the configuration, publishing, DeviceCheck and real-app examples")
        let scratch = try Scratch()
        defer { scratch.remove() }
        for block in blocks {
            var text = block.text
            for (example, fixture) in Self.substitutions { text = text.replacingOccurrences(of: example, with: fixture) }
            let isFragment = text.hasPrefix("\"")
            if isFragment {
                text = "{\"apps\": [{\"id\": \"shop\", \"keys\": [{\"key\": \"server-key-0001\", \"role\": \"server\"}],\n\(text)}]}"
            }
            let file = try scratch.write("herald.json", text)
            do {
                let configuration = try ConfigurationLoader.load(file: file, environment: [:])
                if isFragment {
                    let app = try #require(configuration.apps.first, "\(block)")
                    #expect(
                        app.apns != nil || app.fcm != nil || app.webPush != nil || app.deviceCheck != nil || app.webhook != nil, "\(block)")
                }
            } catch {
                Issue.record("\(block) does not load: \(error)")
            }
        }
    }
}
