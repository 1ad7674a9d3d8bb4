import Foundation
import Herald
import HeraldCore
import HeraldTestSupport
import Testing

/// docs/configuration.md's table of settings against the blocks' declarations (`Setting`): every
/// declared setting of a module's block has a row, and the row gives the declared default. A row may
/// name several keys of one block (`apps[].apns.connections`, `.streamsPerConnection`) with their
/// defaults in the same order (`2`, `500`).
@Suite struct ConfigurationTableTests {
    /// Each documented key (`apps[].apns.connections`) and the default column's text for it.
    static func documentedDefaults() throws -> [String: String] {
        let text = try String(contentsOfFile: FixtureFiles.path("docs/configuration.md"), encoding: .utf8)
        var defaults: [String: String] = [:]
        for line in text.split(separator: "\n") where line.hasPrefix("| `") {
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count > 3 else { continue }
            let keys = cells[1].split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).trimmingCharacters(in: ["`"]) }
            guard let first = keys.first, let dot = first.lastIndex(of: ".") else { continue }
            let block = first[..<dot]
            let values = cells[2].split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            for (index, key) in keys.enumerated() {
                let full = key.hasPrefix(".") ? block + key : key
                defaults[String(full)] = values.count == keys.count ? values[index] : cells[2]
            }
        }
        return defaults
    }

    @Test func everyDeclaredAppSettingHasARowWithItsDefault() throws {
        let documented = try Self.documentedDefaults()
        for block in ConfigurationLoader.appBlocks {
            for setting in block.settings {
                let key = "apps[].\(block.key).\(setting.key)"
                guard let given = documented[key] else {
                    Issue.record("docs/configuration.md has no row for \(key)")
                    continue
                }
                if let value = setting.defaultValue {
                    #expect(given.contains("`\(value)`"), "\(key): the table says \(given), the declaration \(value)")
                }
            }
        }
    }
}
