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

    /// Every declared block with the path its rows use (`http`, `apps[].webhook`, `apps[].apns`).
    static var declaredBlocks: [(path: String, settings: [Setting])] {
        ConfigurationDeclarations.blocks.map { ($0.key, $0.settings) }
            + ConfigurationDeclarations.appBlocks.map { ("apps[].\($0.key)", $0.settings) }
            + ConfigurationLoader.appBlocks.map { ("apps[].\($0.key)", $0.settings) }
    }

    @Test func everyDeclaredSettingHasARowWithItsDefault() throws {
        let documented = try Self.documentedDefaults()
        for (path, settings) in Self.declaredBlocks {
            for setting in settings {
                let key = "\(path).\(setting.key)"
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

    /// And the other way: a row names only settings that are declared (or the apps' `id` and `keys`).
    @Test func everyRowNamesADeclaredSetting() throws {
        let declared = Set(Self.declaredBlocks.flatMap { block in block.settings.map { "\(block.path).\($0.key)" } })
            .union(["apps[].id", "apps[].keys[].key", "apps[].keys[].role"])
        for key in try Self.documentedDefaults().keys.sorted() where key.contains(".") && !key.contains(" ") {
            #expect(declared.contains(key), "docs/configuration.md documents \(key), which no block declares")
        }
    }
}
