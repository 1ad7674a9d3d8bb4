import Foundation
import HeraldCore

/// The configuration file's JSON Schema (draft 2020-12), derived from the same declarations the loader
/// reads through: what `herald schema` prints, for an editor to check and complete herald.json as it
/// is written. Keys that start with `//` are comments and allowed anywhere.
///
/// Herald reads every value as text and converts it, so `"port": "8080"` loads too; the schema states
/// the type the documentation gives (`8080`), the stricter of the two.
public enum ConfigurationJSONSchema {
    public static var document: JSONValue {
        var apps: [String: JSONValue] = [
            "id": .object(["type": .string("string"), "description": .string("the {appId} of every route")]),
            "keys": .object([
                "type": .string("array"),
                "items": object(
                    [
                        "key": .object(["type": .string("string")]),
                        "role": .object(["enum": .array(["client", "server", "admin"].map(JSONValue.string))]),
                    ], required: ["key", "role"]),
            ]),
        ]
        for (key, settings) in ConfigurationDeclarations.appBlocks { apps[key] = block(settings) }
        for module in ConfigurationLoader.appBlocks { apps[module.key] = block(module.settings) }
        var root = Dictionary(uniqueKeysWithValues: ConfigurationDeclarations.blocks.map { ($0.key, block($0.settings)) })
        root["apps"] = .object(["type": .string("array"), "items": object(apps, required: ["id", "keys"])])
        root["$schema"] = .object(["type": .string("string"), "description": .string("this schema's location, for an editor")])
        var schema = object(root, required: [])
        if case .object(var fields) = schema {
            fields["$schema"] = .string("https://json-schema.org/draft/2020-12/schema")
            fields["title"] = .string("Herald configuration file")
            schema = .object(fields)
        }
        return schema
    }

    /// The schema as `herald schema` prints it: sorted keys, two-space indents, a final newline.
    public static var text: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        let data = (try? encoder.encode(document)) ?? Data()
        return String(decoding: data, as: UTF8.self) + "\n"
    }

    static func object(_ properties: [String: JSONValue], required: [String]) -> JSONValue {
        var fields: [String: JSONValue] = [
            "type": .string("object"), "properties": .object(properties), "additionalProperties": .bool(false),
            "patternProperties": .object(["^//": .object([:])]),
        ]
        if !required.isEmpty { fields["required"] = .array(required.map(JSONValue.string)) }
        return .object(fields)
    }

    static func block(_ settings: [Setting]) -> JSONValue {
        object(Dictionary(uniqueKeysWithValues: settings.map { ($0.key, property($0)) }), required: [])
    }

    static func property(_ setting: Setting) -> JSONValue {
        var fields: [String: JSONValue]
        switch setting.kind {
        case .text, .file: fields = ["type": .string("string")]
        case .url: fields = ["type": .string("string"), "pattern": .string("^https?://")]
        case .choice(let words): fields = ["enum": .array(words.map(JSONValue.string))]
        case .integer(let range):
            fields = [
                "type": .string("integer"), "minimum": .integer(Int64(range.lowerBound)), "maximum": .integer(Int64(range.upperBound)),
            ]
        case .number(let range, _):
            fields = ["type": .string("number"), "minimum": .number(range.lowerBound), "maximum": .number(range.upperBound)]
        case .boolean: fields = ["type": .string("boolean")]
        case .list: fields = ["type": .string("array"), "items": .object(["type": .string("string")])]
        }
        if let value = setting.defaultValue {
            switch setting.kind {
            case .integer: fields["default"] = Int64(value).map(JSONValue.integer) ?? .string(value)
            case .number: fields["default"] = Double(value).map(JSONValue.number) ?? .string(value)
            case .boolean: fields["default"] = .bool(value == "true")
            default: fields["default"] = .string(value)
            }
        }
        if setting.secret { fields["writeOnly"] = .bool(true) }
        return .object(fields)
    }
}
