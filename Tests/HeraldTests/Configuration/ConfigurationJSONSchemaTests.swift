import Foundation
import Herald
import HeraldCore
import HeraldTestSupport
import Testing

/// The configuration's JSON Schema (`herald schema`): docs/herald.schema.json is what the command prints
/// today (scripts/validate-deploy.sh checks deploy/ against the file), and the schema says what the
/// loader does.
@Suite struct ConfigurationJSONSchemaTests {
    @Test func theCommittedSchemaIsCurrent() throws {
        let committed = try String(contentsOfFile: FixtureFiles.path("docs/herald.schema.json"), encoding: .utf8)
        #expect(
            committed == ConfigurationJSONSchema.text, "docs/herald.schema.json is stale: swift run herald schema > docs/herald.schema.json"
        )
    }

    @Test func theCommandPrintsIt() async throws {
        let result = try await HeraldProcess.run(["schema"])
        #expect(result.code == 0)
        #expect(result.stdout == ConfigurationJSONSchema.text)
    }

    /// A declared range and default reach the schema: `http.port` is an integer 0–65535 defaulting to 8080.
    @Test func rangesAndDefaultsAreTheDeclarations() throws {
        guard case .object(let root) = ConfigurationJSONSchema.document, case .object(let properties)? = root["properties"],
            case .object(let http)? = properties["http"], case .object(let fields)? = http["properties"],
            case .object(let port)? = fields["port"]
        else {
            Issue.record("no http.port in the schema")
            return
        }
        #expect(port["type"] == .string("integer"))
        #expect(port["minimum"] == .integer(0) && port["maximum"] == .integer(65535))
        #expect(port["default"] == .integer(Int64(HeraldConfiguration.HTTP().port)))
        #expect(http["additionalProperties"] == .bool(false), "an unknown key is refused, as the loader refuses it")
    }

    /// A file that names its schema (`"$schema"`) loads: the key is the editor's, not a setting.
    @Test func aFileMayNameItsSchema() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let file = scratch.path("herald.json")
        try #"{"$schema": "./herald.schema.json", "apps": [{"id": "a", "keys": [{"key": "k-0123456789", "role": "client"}]}]}"#
            .write(toFile: file, atomically: true, encoding: .utf8)
        let configuration = try ConfigurationLoader.load(file: file, environment: [:])
        #expect(configuration.apps.map(\.id) == ["a"])
    }
}
